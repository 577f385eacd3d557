/** A button whose action runs only once confirmed in a dialog naming what it does. */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { Dialog } from './dialog.js'

export interface ConfirmButtonProps {
  /** The button's text (also the confirming button's). */
  label: string
  /** What the dialog asks, e.g. "Revoke this credential? Verifiers will see it revoked." */
  question: ComponentChildren
  /** Runs once confirmed; the button is disabled while it runs. */
  action: () => Promise<void>
  /** A `danger` button (red) for irreversible actions. */
  danger?: boolean
}

/** `label`, then a confirmation dialog; `action` runs on "Yes, <label>". */
export function ConfirmButton({ label, question, action, danger }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const confirm = async () => {
    setAsking(false)
    setBusy(true)
    try {
      await action()
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" class={danger ? 'danger' : undefined} disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
      {asking && (
        <Dialog title={`${label}?`} onClose={() => setAsking(false)}>
          <p>{question}</p>
          <button type="button" class={danger ? 'danger' : 'primary'} onClick={() => void confirm()}>
            Yes, {label.toLowerCase()}
          </button>
        </Dialog>
      )}
    </>
  )
}
