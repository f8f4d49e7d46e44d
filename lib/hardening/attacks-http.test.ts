import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { createExecutor } from '../executor/executor';
import { createRegistry } from '../executor/registry';
import { createHttpRequestTool, type HttpRequestInput, type HttpRequestOptions } from '../tools/http-request';
import type { ResolvedAddress, ResolveHost } from '../tools/http-request-resolve';
import { createTestContext, expectToolError } from '../tools/test-helpers';
import { crowding } from './testing/machine-pace';

/**
 * Attacks on `http_request`: server-side request forgery by every spelling of an internal address,
 * DNS names that resolve inside (and rebinding), redirects to refused hosts and schemes,
 * credentials leaking across origins, decompression bombs, endless and slow bodies.
 * Real HTTP on loopback; names resolve through an injected resolver (no real DNS) or, for
 * `localhost`, through the system's.
 */

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

/** What the servers below saw, by server. */
const seen: Record<'main' | 'other' | 'decoy', Seen[]> = { main: [], other: [], decoy: [] };
/** Paths whose connection closed before the response was complete. */
const cut = new Set<string>();
let main: Server;
let other: Server;
let decoy: Server | null = null;
let port: number;
let otherPort: number;
let base: string;

const MiB = 1024 * 1024;
let gzipMember: Buffer;
let deflateBomb: Buffer;
let brotliBomb: Buffer;
let emptyGzipFlushes: Buffer;

function record(name: keyof typeof seen) {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    seen[name].push({ path: url.pathname, headers: request.headers });
    response.on('close', () => {
      if (!response.writableFinished) cut.add(url.pathname);
    });
    const to = url.searchParams.get('to');
    if (url.pathname === '/redirect' && to) {
      response.writeHead(Number(url.searchParams.get('code') ?? 302), { location: to });
      return response.end();
    }
    switch (url.pathname) {
      case '/bomb/gzip-endless': {
        // gzip members concatenate: an endless stream of 64 MiB members, ~1000:1 each.
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return pump(response, () => gzipMember);
      }
      case '/bomb/gzip-gzip': {
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip, gzip' });
        return response.end(gzipSync(Buffer.concat(Array(16).fill(gzipMember))));
      }
      case '/bomb/gzip-x10': {
        let body = Buffer.from('hello');
        for (let layer = 0; layer < 10; layer++) body = gzipSync(body);
        response.writeHead(200, {
          'content-type': 'text/plain',
          'content-encoding': Array(10).fill('gzip').join(', '),
        });
        return response.end(body);
      }
      case '/bomb/deflate':
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'deflate' });
        return response.end(deflateBomb);
      case '/bomb/br':
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' });
        return response.end(brotliBomb);
      case '/bomb/empty-flushes':
        // Decodes to nothing, for ever: only the cap on encoded bytes stops it.
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        response.write(emptyGzipFlushes);
        return pump(response, () => emptyGzipFlushes.subarray(10));
      case '/bomb/corrupt':
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return response.end(Buffer.from('this is not gzip at all'));
      case '/endless':
        response.writeHead(200, { 'content-type': 'text/plain' });
        return pump(response, () => Buffer.alloc(64 * 1024, 'z'));
      case '/drip': {
        // Headers at once, then one byte every 50 ms, for ever: never idle, never done.
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('.'), 50);
        response.on('close', () => clearInterval(timer));
        return;
      }
      case '/no-answer':
        return;
      default:
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ server: name, path: url.pathname }));
    }
  });
}

/** Writes `chunk()` for as long as the client reads, honouring backpressure. */
function pump(response: import('node:http').ServerResponse, chunk: () => Buffer) {
  const write = () => {
    while (!response.destroyed && response.write(chunk())) {
      /* until the socket buffer is full */
    }
    if (!response.destroyed) response.once('drain', write);
  };
  write();
}

async function listen(server: Server | TcpServer, host: string, at = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function close(server: Server | TcpServer | null) {
  if (!server) return;
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

beforeAll(async () => {
  gzipMember = gzipSync(Buffer.alloc(64 * MiB), { level: 9 });
  deflateBomb = deflateSync(Buffer.alloc(64 * MiB), { level: 9 });
  brotliBomb = brotliCompressSync(Buffer.alloc(256 * MiB), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
  emptyGzipFlushes = emptyFlushes();
  main = record('main');
  other = record('other');
  port = await listen(main, '127.0.0.1');
  otherPort = await listen(other, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
  // A second server on the same port of another loopback address: where a rebinding would land.
  decoy = record('decoy');
  await listen(decoy, '127.0.0.2', port).catch(() => {
    decoy = null;
  });
}, 30_000);

afterAll(async () => {
  await Promise.all([close(main), close(other), close(decoy)]);
});

/**
 * A gzip header, then 64 KiB of empty stored blocks (what a sync flush writes: 00 00 00 ff ff),
 * none of them final: a member that decodes to nothing, for as long as blocks keep coming.
 */
function emptyFlushes(): Buffer {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  return Buffer.concat([header, ...Array<Buffer>(13_107).fill(Buffer.from([0, 0, 0, 0xff, 0xff]))]);
}

/** A resolver that knows only the names given, counting its lookups. */
function resolver(names: Record<string, string[]>): ResolveHost & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    lookups.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { lookups });
}

function http(options: HttpRequestOptions = {}) {
  const tool = createHttpRequestTool(options);
  return async (input: HttpRequestInput, context = createTestContext()) =>
    tool.execute(tool.inputSchema.parse(input), context);
}

const requestsSeen = () => seen.main.length + seen.other.length + seen.decoy.length;

describe('SSRF: every spelling of loopback and private addresses, none of them allowlisted', () => {
  const request = http({ allowHosts: ['api.example.test'] });
  it.each([
    ['127.1', 'http://127.1:PORT/'],
    ['0x7f.1', 'http://0x7f.1:PORT/'],
    ['0x7f.0.0.1', 'http://0x7f.0.0.1:PORT/'],
    ['0x7f000001', 'http://0x7f000001:PORT/'],
    ['2130706433 (decimal)', 'http://2130706433:PORT/'],
    ['017700000001 (octal)', 'http://017700000001:PORT/'],
    ['0177.0.0.1', 'http://0177.0.0.1:PORT/'],
    ['127.000.000.001', 'http://127.000.000.001:PORT/'],
    ['127.0.0.2', 'http://127.0.0.2:PORT/'],
    ['fullwidth digits', 'http://１２７.０.０.１:PORT/'],
    ['percent-encoded host', 'http://%31%32%37.0.0.1:PORT/'],
    ['[::1]', 'http://[::1]:PORT/'],
    ['[0:0:0:0:0:0:0:1]', 'http://[0:0:0:0:0:0:0:1]:PORT/'],
    ['[::ffff:127.0.0.1]', 'http://[::ffff:127.0.0.1]:PORT/'],
    ['[0:0:0:0:0:ffff:7f00:1]', 'http://[0:0:0:0:0:ffff:7f00:1]:PORT/'],
    ['[::127.0.0.1] (IPv4-compatible)', 'http://[::127.0.0.1]:PORT/'],
    ['[64:ff9b::7f00:1] (NAT64)', 'http://[64:ff9b::7f00:1]:PORT/'],
    ['0.0.0.0', 'http://0.0.0.0:PORT/'],
    ['0', 'http://0:PORT/'],
    ['[::]', 'http://[::]:PORT/'],
    ['localhost', 'http://localhost:PORT/'],
    ['localhost.', 'http://localhost.:PORT/'],
    ['LOCALHOST', 'http://LOCALHOST:PORT/'],
    ['LocalHost.', 'http://LocalHost.:PORT/'],
    ['sub.localhost', 'http://sub.localhost:PORT/'],
    ['169.254.169.254 (cloud metadata)', 'http://169.254.169.254/latest/meta-data/'],
    ['0xa9fea9fe (metadata, hex)', 'http://0xa9fea9fe/'],
    ['[::ffff:169.254.169.254]', 'http://[::ffff:169.254.169.254]/'],
    ['[fd00::1] (unique local)', 'http://[fd00::1]/'],
    ['[fe80::1] (link-local)', 'http://[fe80::1]/'],
    ['10.0.0.1', 'http://10.0.0.1/'],
    ['172.16.0.1', 'http://172.16.0.1/'],
    ['192.168.0.1', 'http://192.168.0.1/'],
    ['100.64.0.1 (carrier-grade NAT)', 'http://100.64.0.1/'],
    ['224.0.0.1 (multicast)', 'http://224.0.0.1/'],
    ['255.255.255.255 (broadcast)', 'http://255.255.255.255/'],
    ['127.0.0.1.nip.io', 'http://127.0.0.1.nip.io:PORT/'],
    ['userinfo trick', 'http://api.example.test@127.0.0.1:PORT/'],
    ['fragment trick', 'http://127.0.0.1:PORT#@api.example.test/'],
    ['backslash trick', 'http://127.0.0.1:PORT\\@api.example.test/'],
  ])('refuses %s before connecting', async (_name, template) => {
    const before = requestsSeen();
    const error = await expectToolError(request({ url: template.replace('PORT', String(port)) }));
    expect(error).toMatchObject({ code: 'HOST_NOT_ALLOWED', kind: 'permission', retryable: false });
    expect(error.message).toMatch(/not on the HTTP allowlist/);
    expect(requestsSeen()).toBe(before);
  });

  it('real DNS: localhost reaches loopback through the system resolver, and never a denied port', async () => {
    const reached = await http({ allowHosts: [`localhost:${port}`] })({ url: `http://localhost:${port}/real-dns` });
    expect(reached.body).toEqual({ server: 'main', path: '/real-dns' });
    // The deny entry names 127.0.0.1 only; "localhost" resolves there (or to ::1): refused by address.
    const before = requestsSeen();
    const error = await expectToolError(
      http({ allowHosts: ['localhost'], denyHosts: [`127.0.0.1:${port}`] })({ url: `http://localhost:${port}/` }),
    );
    expect(error).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED', details: { reason: 'denied' } });
    expect(requestsSeen()).toBe(before);
  });
});

describe('SSRF: allowlisted names that resolve inside', () => {
  const names = {
    'loop.example.test': ['127.0.0.1'],
    'loop6.example.test': ['::1'],
    'meta.example.test': ['169.254.169.254'],
    'private.example.test': ['10.0.0.5'],
    'private172.example.test': ['172.31.255.255'],
    'home.example.test': ['192.168.1.1'],
    'cgnat.example.test': ['100.64.0.1'],
    'zero.example.test': ['0.0.0.0'],
    'unspecified6.example.test': ['::'],
    'mapped.example.test': ['::ffff:127.0.0.1'],
    'mapped-meta.example.test': ['::ffff:a9fe:a9fe'],
    'ula.example.test': ['fd00::1'],
    'linklocal6.example.test': ['fe80::1%lo'],
    'sitelocal.example.test': ['fec0::1'],
    'multicast.example.test': ['224.0.0.251'],
    'multicast6.example.test': ['ff02::1'],
    'nat64.example.test': ['64:ff9b::a9fe:a9fe'],
    'sixtofour.example.test': ['2002:7f00:1::1'],
    'teredo.example.test': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    'reserved.example.test': ['240.0.0.1'],
    'benchmark.example.test': ['198.18.0.1'],
    'mixed.example.test': ['93.184.216.34', '127.0.0.1'],
    'mixed6.example.test': ['2606:2800:220:1:248:1893:25c8:1946', '::1'],
  };
  const request = http({ allowHosts: ['*.example.test'], resolve: resolver(names) });

  it.each(Object.entries(names).map(([name, addresses]) => [name, addresses.at(-1) as string]))(
    'refuses %s (resolves to %s), naming the address and why',
    async (name, address) => {
      const before = requestsSeen();
      const error = await expectToolError(request({ url: `http://${name}:${port}/` }));
      expect(error).toMatchObject({
        code: 'ADDRESS_NOT_ALLOWED',
        kind: 'permission',
        retryable: false,
        details: { host: `${name}:${port}`, address, reason: 'not-public', range: expect.any(String) },
      });
      expect(error.message).toContain(`"${name}" resolves to ${address}`);
      expect(requestsSeen()).toBe(before);
    },
  );

  it('names the kind of address in the refusal', async () => {
    const meta = await expectToolError(request({ url: 'http://meta.example.test/latest/meta-data/' }));
    expect(meta.message).toMatch(/169\.254\.169\.254, which is a link-local address \(cloud metadata lives here\)/);
    const mapped = await expectToolError(request({ url: 'http://mapped.example.test/' }));
    expect(mapped.message).toMatch(/IPv4-mapped IPv6 address/);
    const cgnat = await expectToolError(request({ url: 'http://cgnat.example.test/' }));
    expect(cgnat.message).toMatch(/carrier-grade NAT/);
  });

  it('connects when the address itself, or a block holding it, is allowlisted', async () => {
    for (const allow of ['127.0.0.1', `127.0.0.1:${port}`, '127.0.0.0/8']) {
      const output = await http({ allowHosts: ['*.example.test', allow], resolve: resolver(names) })({
        url: `http://loop.example.test:${port}/allowed`,
      });
      expect(output.body).toEqual({ server: 'main', path: '/allowed' });
    }
    expect(seen.main.at(-1)?.headers.host).toBe(`loop.example.test:${port}`);
    const wrongPort = await expectToolError(
      http({ allowHosts: ['*.example.test', '127.0.0.1:1'], resolve: resolver(names) })({
        url: `http://loop.example.test:${port}/`,
      }),
    );
    expect(wrongPort.code).toBe('ADDRESS_NOT_ALLOWED');
  });

  it("refuses Toolscope's own port through any name or spelling that reaches this machine", async () => {
    const resolve = resolver({
      'own.example.test': ['127.0.0.1'],
      'own6.example.test': ['::ffff:127.0.0.1'],
      localhost: ['::1', '127.0.0.1'],
    });
    const denyHosts = [`127.0.0.1:${port}`];
    const allowHosts = ['*.example.test', '127.0.0.0/8', '0.0.0.0', '::ffff:0:0/96', 'localhost'];
    const request = http({ allowHosts, denyHosts, resolve });
    for (const url of [
      `http://own.example.test:${port}/`,
      `http://own6.example.test:${port}/`,
      `http://127.0.0.5:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://localhost:${port}/`,
    ]) {
      const before = requestsSeen();
      const error = await expectToolError(request({ url }));
      expect(error, url).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED', details: { reason: 'denied' } });
      expect(error.message).toMatch(/Toolscope's own API/);
      expect(requestsSeen()).toBe(before);
    }
    await expect(request({ url: `http://own.example.test:${otherPort}/` })).resolves.toMatchObject({ status: 200 });
  });

  it('DNS rebinding: the connection goes to the address that was checked, with one lookup', async () => {
    if (!decoy) return; // 127.0.0.2 not bindable here; the lookup count below still shows it
    let answers = 0;
    const lookups: string[] = [];
    const rebinding: ResolveHost = async (hostname) => {
      lookups.push(hostname);
      // First the allowlisted address, then (for any second lookup) one that is not.
      return [{ address: answers++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    };
    const output = await http({ allowHosts: ['rebind.example.test', '127.0.0.1'], resolve: rebinding })({
      url: `http://rebind.example.test:${port}/rebind`,
    });
    expect(output.body).toEqual({ server: 'main', path: '/rebind' });
    expect(lookups).toEqual(['rebind.example.test']);
    expect(seen.decoy).toEqual([]);
  });

  it('https: pinned to the checked address, while TLS checks the name (SNI carries it; a self-signed certificate fails)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolscope-tls-'));
    try {
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=secure.example.test']
          .concat(['-addext', 'subjectAltName=DNS:secure.example.test'])
          .concat(['-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')]),
        { stdio: 'ignore' },
      );
    } catch {
      rmSync(dir, { recursive: true, force: true });
      return; // no openssl here
    }
    const key = readFileSync(path.join(dir, 'key.pem'));
    const cert = readFileSync(path.join(dir, 'cert.pem'));
    rmSync(dir, { recursive: true, force: true });
    const names: string[] = [];
    const secure = createHttpsServer({
      key,
      cert,
      SNICallback: (name, done) => {
        names.push(name);
        done(null, createSecureContext({ key, cert }));
      },
    });
    secure.on('tlsClientError', () => {});
    const securePort = await listen(secure, '127.0.0.1');
    try {
      const lookups = resolver({ 'secure.example.test': ['127.0.0.1'] });
      const error = await expectToolError(
        http({ allowHosts: ['secure.example.test', '127.0.0.1'], resolve: lookups })({
          url: `https://secure.example.test:${securePort}/`,
        }),
      );
      expect(error).toMatchObject({ code: 'TLS_ERROR' });
      expect(error.message).toMatch(/self[- ]signed/i);
      expect(names).toEqual(['secure.example.test']);
      expect(lookups.lookups).toEqual(['secure.example.test']);
    } finally {
      await close(secure);
    }
  });

  it('a name that does not resolve is HOST_NOT_FOUND, not a connection to anything', async () => {
    const error = await expectToolError(request({ url: 'http://nowhere.example.test/' }));
    expect(error).toMatchObject({ code: 'HOST_NOT_FOUND' });
  });
});

describe('redirects', () => {
  const resolve = resolver({ 'inside.example.test': ['10.1.2.3'], 'loop.example.test': ['127.0.0.1'] });
  const request = http({ allowHosts: ['127.0.0.1', '*.example.test'], resolve });
  const redirect = (to: string, code = 302) => `${base}/redirect?code=${code}&to=${encodeURIComponent(to)}`;

  it.each([
    'http://10.0.0.1/admin',
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://[::1]/',
    'http://0x7f.2/',
    'http://localhost/',
    'http://example.com/',
    '//evil.example.com/',
    'http://127.0.0.1@evil.example.com/',
  ])('refuses a redirect to the refused host %s', async (to) => {
    const before = requestsSeen();
    const error = await expectToolError(request({ url: redirect(to.replace('127.0.0.1/', `127.0.0.1:${port}/`)) }));
    expect(error).toMatchObject({ code: 'HOST_NOT_ALLOWED', kind: 'permission' });
    expect(error.message).toMatch(/redirected from/);
    expect(requestsSeen()).toBe(before + 1);
  });

  it.each([301, 302, 303, 307, 308])('refuses a %i redirect to a name that resolves inside', async (code) => {
    const before = requestsSeen();
    const error = await expectToolError(request({ url: redirect('http://inside.example.test/', code) }));
    expect(error).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED', details: { address: '10.1.2.3' } });
    expect(error.message).toMatch(/redirected from/);
    expect(requestsSeen()).toBe(before + 1);
  });

  it.each([
    'file:///etc/passwd',
    'file://localhost/etc/shadow',
    'ftp://127.0.0.1/',
    'data:text/plain;base64,c2VjcmV0',
    'javascript:alert(1)',
    'gopher://127.0.0.1:6379/_FLUSHALL',
    'dict://127.0.0.1:11211/stats',
    'ws://127.0.0.1/',
  ])('refuses a redirect to the scheme of %s', async (to) => {
    const before = requestsSeen();
    const error = await expectToolError(request({ url: redirect(to) }));
    expect(error).toMatchObject({ code: 'UNSUPPORTED_PROTOCOL', kind: 'parameter' });
    expect(requestsSeen()).toBe(before + 1);
  });

  it('drops every credential header on a cross-origin redirect (another port), keeps them on the same origin', async () => {
    const headers = {
      authorization: 'Bearer top-secret',
      cookie: 'session=abc',
      'proxy-authorization': 'Basic cHJveHk=',
      'x-api-key': 'key-123',
      'x-request-id': 'kept-1',
    };
    seen.other.length = 0;
    await request({ url: redirect(`http://127.0.0.1:${otherPort}/landed`), headers });
    const landed = seen.other.find((entry) => entry.path === '/landed');
    expect(landed?.headers).toMatchObject({ 'x-request-id': 'kept-1' });
    for (const name of ['authorization', 'cookie', 'proxy-authorization', 'x-api-key']) {
      expect(landed?.headers[name], name).toBeUndefined();
    }
    await request({ url: redirect('/same-origin'), headers });
    expect(seen.main.find((entry) => entry.path === '/same-origin')?.headers).toMatchObject({
      authorization: 'Bearer top-secret',
      cookie: 'session=abc',
      'x-api-key': 'key-123',
    });
  });

  it('drops credentials on a redirect to another name for the same address', async () => {
    seen.main.length = 0;
    await request({
      url: redirect(`http://loop.example.test:${port}/renamed`),
      headers: { authorization: 'Bearer top-secret', cookie: 'a=b' },
    });
    const renamed = seen.main.find((entry) => entry.path === '/renamed');
    expect(renamed?.headers.host).toBe(`loop.example.test:${port}`);
    expect(renamed?.headers.authorization).toBeUndefined();
    expect(renamed?.headers.cookie).toBeUndefined();
  });

  it('drops credentials across a chain that leaves and comes back to the origin', async () => {
    seen.main.length = 0;
    const back = `${base}/came-back`;
    const via = `http://127.0.0.1:${otherPort}/redirect?to=${encodeURIComponent(back)}`;
    await request({ url: redirect(via), headers: { authorization: 'Bearer top-secret' } });
    expect(seen.main.find((entry) => entry.path === '/came-back')?.headers.authorization).toBeUndefined();
  });

  it('refuses a redirect that carries user:password, sending nothing there', async () => {
    seen.other.length = 0;
    const error = await expectToolError(request({ url: redirect(`http://admin:hunter2@127.0.0.1:${otherPort}/x`) }));
    expect(error).toMatchObject({ code: 'CREDENTIALS_IN_URL' });
    expect(seen.other).toEqual([]);
  });
});

describe('decompression bombs', () => {
  const request = http();

  async function bomb(path: string, maxResponseBytes = MiB) {
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const output = await http({ maxResponseBytes })({ url: `${base}${path}` });
    return { output, ms: Date.now() - started, rssGrowth: process.memoryUsage().rss - rssBefore };
  }

  it('gzip: an endless stream of 1000:1 members stops at the cap of decoded bytes', async () => {
    const { output, rssGrowth } = await bomb('/bomb/gzip-endless');
    expect(output).toMatchObject({ truncated: true, bodyBytes: MiB, bodyFormat: 'binary' });
    expect(rssGrowth).toBeLessThan(200 * MiB);
    await expect.poll(() => cut.has('/bomb/gzip-endless')).toBe(true);
  });

  it('gzip inside gzip: 1 GiB in two layers stops at the cap', async () => {
    const { output, rssGrowth } = await bomb('/bomb/gzip-gzip', 64 * 1024);
    expect(output).toMatchObject({ truncated: true, bodyBytes: 64 * 1024 });
    expect(rssGrowth).toBeLessThan(200 * MiB);
  });

  it('deflate: 64 MiB from 64 KiB stops at the cap', async () => {
    const { output } = await bomb('/bomb/deflate');
    expect(output).toMatchObject({ truncated: true, bodyBytes: MiB });
  });

  it('br: 256 MiB from 48 KiB stops at the cap', async () => {
    const { output, rssGrowth } = await bomb('/bomb/br');
    expect(output).toMatchObject({ truncated: true, bodyBytes: MiB });
    expect(rssGrowth).toBeLessThan(200 * MiB);
  });

  it('ten layers of gzip are not unwrapped: the body comes back as sent, with a note', async () => {
    const output = await request({ url: `${base}/bomb/gzip-x10` });
    expect(output).toMatchObject({ truncated: false, bodyFormat: 'binary' });
    expect(output.note).toMatch(/not decoded/);
  });

  it('an encoded stream that decodes to nothing is cut by the cap on encoded bytes', async () => {
    const output = await http({ maxResponseBytes: 64 * 1024 })({ url: `${base}/bomb/empty-flushes` });
    expect(output).toMatchObject({ truncated: true, bodyBytes: 0 });
    expect(output.note).toMatch(/encoded body passed/);
    await expect.poll(() => cut.has('/bomb/empty-flushes')).toBe(true);
  });

  it('a corrupt encoding is a structured error, not a crash', async () => {
    const error = await expectToolError(request({ url: `${base}/bomb/corrupt` }));
    expect(error).toMatchObject({ code: 'BODY_DECODING_FAILED', kind: 'business' });
  });
});

describe('endless and slow bodies', () => {
  it('an endless body is cut at the cap and the connection closed', async () => {
    const output = await http({ maxResponseBytes: 256 * 1024 })({ url: `${base}/endless` });
    expect(output).toMatchObject({ truncated: true, bodyBytes: 256 * 1024 });
    await expect.poll(() => cut.has('/endless')).toBe(true);
  });

  /** The tool through the real executor, one attempt, with a short timeout. */
  async function throughExecutor(url: string, timeoutMs: number) {
    const tool = createHttpRequestTool({ timeoutMs, allowHosts: ['127.0.0.1'] });
    const executor = createExecutor({
      registry: createRegistry([{ ...tool, retry: { ...tool.retry, maxAttempts: 1 } }]),
      sink: createMemoryTraceStore(),
    });
    const started = Date.now();
    const result = await executor.execute({ name: 'http_request', arguments: { url } });
    return { result, ms: Date.now() - started };
  }

  it('a server that drips one byte at a time is stopped by the timeout', async () => {
    const { result, ms } = await throughExecutor(`${base}/drip`, 400);
    expect(result.error).toMatchObject({ code: 'TIMEOUT', kind: 'timeout' });
    expect(ms).toBeLessThan(3_000 * crowding());
    await expect.poll(() => cut.has('/drip')).toBe(true);
  });

  it('a server that never answers is stopped by the timeout', async () => {
    const { result } = await throughExecutor(`${base}/no-answer`, 300);
    expect(result.error).toMatchObject({ code: 'TIMEOUT' });
    await expect.poll(() => cut.has('/no-answer')).toBe(true);
  });

  describe('slowloris on the raw socket', () => {
    let raw: TcpServer;
    let rawPort: number;
    const sockets = new Set<Socket>();
    const closed: string[] = [];

    beforeAll(async () => {
      raw = createTcpServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => {});
        socket.once('data', (data) => {
          const path = /^[A-Z]+ (\S+)/.exec(data.toString('latin1'))?.[1] ?? '';
          socket.on('close', () => closed.push(path));
          const send = (text: string, everyMs: number) => {
            let at = 0;
            const timer = setInterval(() => {
              if (socket.destroyed) return clearInterval(timer);
              socket.write(text[at % text.length] as string);
              at++;
            }, everyMs);
          };
          if (path === '/status-line') send('HTTP/1.1 200 OK\r\n', 50);
          if (path === '/headers-forever') {
            socket.write('HTTP/1.1 200 OK\r\n');
            const timer = setInterval(() => {
              if (socket.destroyed) return clearInterval(timer);
              socket.write(`x-filler-${Math.random()}: ${'f'.repeat(1000)}\r\n`);
            }, 1);
          }
        });
      });
      rawPort = await listen(raw, '127.0.0.1');
    });

    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await close(raw);
    });

    it('a status line sent one byte at a time is stopped by the timeout', async () => {
      const { result, ms } = await throughExecutor(`http://127.0.0.1:${rawPort}/status-line`, 400);
      expect(result.error).toMatchObject({ code: 'TIMEOUT' });
      expect(ms).toBeLessThan(3_000 * crowding());
      await expect.poll(() => closed.includes('/status-line')).toBe(true);
    });

    it('headers that never end are refused at the header size limit', async () => {
      const { result } = await throughExecutor(`http://127.0.0.1:${rawPort}/headers-forever`, 5_000);
      expect(result.success).toBe(false);
      expect(result.error?.code).toBe('NETWORK_ERROR');
      await expect.poll(() => closed.includes('/headers-forever')).toBe(true);
    });
  });
});
