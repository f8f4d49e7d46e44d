import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts a server on a free loopback port and answers that port. */
export async function listenOnLoopback(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Stops a server now: its open connections (event streams included) are cut, not waited for. */
export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
