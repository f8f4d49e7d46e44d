import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { bodyOf, socketExchange, statusOf } from '../hardening/testing/raw-http';
import { streamChunkedBody } from '../hardening/testing/server-process';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { createHttpApp } from './app';
import { createHttpServer } from './node-server';
import { closeServer, listenOnLoopback } from './testing/listen';

/**
 * What the HTTP layer hands to Next.js (pages, server actions): bodies bounded before Next's proxy
 * could buffer them, chunked ones re-declared with their length; and the API's own bodies bounded
 * per route. A stand-in for Next reads the body it gets and says what it saw.
 */
const MAX_BODY = 64 * 1024;

let dir: string;
let ts: Toolscope;
let server: http.Server;
let port: number;
const seen: { url: string; length: string | undefined; te: string | undefined; bytes: number }[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-bounded-next-'));
  fs.writeFileSync(path.join(dir, 'toolscope.config.json'), JSON.stringify({ limits: { maxBodyBytes: MAX_BODY } }));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
  const app = createHttpApp(ts, {
    heartbeatMs: 60_000,
    async next(req, res) {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        seen.push({
          url: req.url ?? '',
          length: req.headers['content-length'],
          te: req.headers['transfer-encoding'],
          bytes,
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ bytes }));
      });
    },
  });
  server = createHttpServer(app, ts.config.limits);
  port = await listenOnLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  ts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const head = (method: string, url: string, extra = '') =>
  `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close${extra}`;

describe('bodies handed to Next', () => {
  it('hands on a chunked body under the limit as one with its length declared', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(1000) });
    const raw = await socketExchange(port, `${head('POST', '/some/page')}\r\nTransfer-Encoding: chunked`, {
      body: `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    });
    expect(statusOf(raw)).toBe(200);
    expect(seen.at(-1)).toEqual({ url: '/some/page', length: String(body.length), te: undefined, bytes: body.length });
  });

  it('cuts a chunked body over the limit with 413 before Next (or an API route) sees it', async () => {
    const before = seen.length;
    for (const url of ['/api/v1/policy', '/some/page']) {
      const streamed = await streamChunkedBody(port, head('PUT', url), 8 * MAX_BODY, 4096);
      expect(streamed.status, url).toBe(413);
      expect(streamed.received).toContain('PAYLOAD_TOO_LARGE');
    }
    expect(seen.length).toBe(before);
  });

  it("refuses a declared length over the route's limit at once; the import route has its own, larger one", async () => {
    const raw = await socketExchange(port, `${head('POST', '/api/v1/faults')}\r\nContent-Length: ${MAX_BODY + 1}`, {
      timeoutMs: 3_000,
    });
    expect(statusOf(raw)).toBe(413);
    expect(JSON.parse(bodyOf(raw)).error.code).toBe('PAYLOAD_TOO_LARGE');
    const body = JSON.stringify({ pad: 'x'.repeat(MAX_BODY) });
    const imported = await socketExchange(port, `${head('POST', '/api/v1/import')}\r\nContent-Length: ${body.length}`, {
      body,
    });
    // Read whole (past the general limit) and judged as a file: not an export.
    expect(statusOf(imported)).toBe(400);
    expect(JSON.parse(bodyOf(imported)).error.code).toBe('INVALID_IMPORT');
  });

  it('refuses a page GET with a body (400 JSON) and serves an API path without its trailing slash', async () => {
    const raw = await socketExchange(port, `${head('GET', '/some/page')}\r\nContent-Length: 2`, { body: '{}' });
    expect(statusOf(raw)).toBe(400);
    expect(JSON.parse(bodyOf(raw)).error.code).toBe('BODY_NOT_ALLOWED');
    const slash = await socketExchange(port, `${head('GET', '/api/v1/traces/?limit=1')}`);
    expect(statusOf(slash)).toBe(200);
    expect(JSON.parse(bodyOf(slash))).toMatchObject({ items: [] });
  });
});
