/** Loopback ports for tests that must know a server's port before it listens (a public URL, a metrics address). */
import net from 'node:net';

/** A loopback port free right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
