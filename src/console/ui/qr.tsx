/** A QR code of a text as an `<img>` of an SVG data: URL (allowed by the console's `img-src 'self' data:`). */
import { useEffect, useState } from 'preact/hooks'
import QRCode from 'qrcode'

export interface QrProps {
  /** What the code holds (a DID, an offer URI …). */
  text: string
  /** The image's alternative text. */
  label: string
  /** Shown width and height, CSS pixels. */
  size?: number
}

/** The QR code of `text`, drawn in the browser (no request anywhere). */
export function Qr({ text, label, size = 192 }: QrProps) {
  const [src, setSrc] = useState<string>()
  useEffect(() => {
    let live = true
    void QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }).then((svg) => {
      if (live) setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`)
    })
    return () => {
      live = false
    }
  }, [text])
  return src ? <img class="qr" src={src} alt={label} width={size} height={size} /> : null
}
