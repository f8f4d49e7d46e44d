import fs from 'node:fs';
import net from 'node:net';
import type { BuiltServer } from '../../server/testing/built-server';

/**
 * The resident memory of a built server: every process of its group (`scripts/start.mjs` and the
 * server it starts), in bytes, from /proc.
 */
export function serverRssBytes(server: BuiltServer): number {
  const group = server.child.pid;
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command (which may hold spaces): state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== group) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'));
      if (rss) total += Number(rss[1]) * 1024;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

export interface StreamedBody {
  /** The status line's code of what the server answered, 0 if nothing. */
  status: number;
  /** All the server sent. */
  received: string;
  /** Body bytes written before the server closed the connection (or all of them). */
  sentBytes: number;
}

/**
 * Streams a chunked body of up to `totalBytes` to `path`, as fast as the server takes it, and
 * stops when the server answers and closes the connection: how far it got shows where the server
 * cut the body.
 */
export function streamChunkedBody(
  port: number,
  head: string,
  totalBytes: number,
  chunkBytes = 64 * 1024,
): Promise<StreamedBody> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunkBytes.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    let received = '';
    let sentBytes = 0;
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      socket.destroy();
      resolve({ status: Number(received.slice(9, 12)) || 0, received, sentBytes });
    };
    socket.on('data', (data) => (received += data));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(`${head}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const pump = () => {
      // Stops at the answer, as an attentive client does; a server that answers only at the end
      // (or never cuts the body) still gets all of it.
      while (!closed && received === '' && sentBytes < totalBytes) {
        sentBytes += chunkBytes;
        if (!socket.write(frame)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!closed && received === '') socket.end('0\r\n\r\n');
    };
    pump();
  });
}
