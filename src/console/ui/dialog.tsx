/**
 * A modal dialog (the native `<dialog>`, opened with `showModal`: focus is trapped and Escape closes it). Its content is
 * rendered only while it is open, so what it shows (a mnemonic) leaves the DOM when it closes.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

export interface DialogProps {
  /** The dialog's heading, also its accessible name. */
  title: string
  onClose: () => void
  children: ComponentChildren
}

let dialogs = 0

/** A modal dialog shown while mounted; unmount it (or let the user close it) to remove it and its content. */
export function Dialog({ title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const id = useRef(`dialog-${++dialogs}`)
  useEffect(() => {
    const dialog = ref.current!
    if (!dialog.open) dialog.showModal()
    const closed = () => onClose()
    dialog.addEventListener('close', closed)
    return () => dialog.removeEventListener('close', closed)
  }, [onClose])
  return (
    <dialog ref={ref} aria-labelledby={id.current} class="dialog">
      <h2 id={id.current}>{title}</h2>
      {children}
      <div class="actions">
        <button type="button" onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  )
}
