import type { HttpContext } from './env';

/**
 * The client's address: the socket's peer behind Node's server; under Next's dev server, which
 * hands on no socket, the `x-forwarded-for` it sets itself. Never a header a client chose in production.
 */
export function clientAddress(c: HttpContext): string {
  const socket = c.env?.incoming?.socket;
  if (socket) return socket.remoteAddress ?? 'unknown';
  return c.req.header('x-forwarded-for')?.split(',')[0]?.trim() || 'unknown';
}
