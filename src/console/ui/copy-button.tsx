/** A button copying a text to the clipboard, saying whether it did. */
import { useState } from 'preact/hooks'

export interface CopyButtonProps {
  text: string
  label?: string
}

/** Copies `text` with the Clipboard API; says "Copied" or why not. */
export function CopyButton({ text, label = 'Copy' }: CopyButtonProps) {
  const [state, setState] = useState<string>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('Copied')
    } catch {
      setState('Copy refused by the browser: select the text and copy it')
    }
  }
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" class="muted">
        {state}
      </span>
    </>
  )
}
