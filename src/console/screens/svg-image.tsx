/**
 * An SVG the service made (a QR code), shown as an image from a `data:` URL: never parsed into the page's DOM
 * (no innerHTML), so nothing in it can run or style the page; the CSP allows `img-src data:`.
 */

/** `data:image/svg+xml;base64,…` of `svg` (UTF-8). */
export function svgDataUrl(svg: string): string {
  const bytes = new TextEncoder().encode(svg)
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return `data:image/svg+xml;base64,${btoa(binary)}`
}

export function SvgImage({ svg, alt, class: className }: { svg: string; alt: string; class?: string }) {
  return <img class={className ?? 'qr'} src={svgDataUrl(svg)} alt={alt} width={256} height={256} />
}
