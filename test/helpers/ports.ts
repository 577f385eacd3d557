/** Loopback ports for tests. */
import { type AddressInfo, createServer } from 'node:net'

/** A loopback port nothing listens on now (one the system just handed out and took back): free to listen on, or refusing to connect. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
