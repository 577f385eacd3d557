/** The error banner: the last error's type and message, announced to screen readers, dismissable. */
import type { ShownError } from './errors.js'

export interface ErrorBannerProps {
  error: ShownError | undefined
  onDismiss: () => void
}

/** Shows `error` (nothing when there is none) with a button that clears it. */
export function ErrorBanner({ error, onDismiss }: ErrorBannerProps) {
  if (!error) return <div role="alert" class="banner-empty" />
  return (
    <div role="alert" class="banner" data-error-type={error.type}>
      <strong class="banner-type">{error.type}</strong> <span class="banner-message">{error.message}</span>
      <button type="button" class="link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  )
}
