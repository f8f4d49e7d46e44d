import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON upstream on loopback for `http_request` (retry policy: 3 attempts). */
export async function startUpstream() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
