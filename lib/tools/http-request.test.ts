import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateInput } from '../executor/validate-input';
import { crowding } from '../hardening/testing/machine-pace';
import { createHttpRequestTool, type HttpRequestInput, type HttpRequestOptions, httpSideEffect } from './http-request';
import { createTestContext, expectToolError } from './test-helpers';

let server: Server;
let base: string;
let port: number;
/** Set when the server saw a request's connection close before its response finished. */
const aborted = new Set<string>();
/** The paths of the requests the server got. */
const received = new Set<string>();

async function readRequestBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', base);
  received.add(url.pathname);
  response.on('close', () => {
    if (!response.writableFinished) aborted.add(url.pathname);
  });
  const json = (status: number, value: unknown, type = 'application/json') => {
    response.writeHead(status, { 'content-type': type });
    response.end(JSON.stringify(value));
  };
  switch (url.pathname) {
    case '/json':
      return json(200, { hello: 'world', items: [1, 2, 3] });
    case '/problem':
      return json(200, { title: 'ok' }, 'application/problem+json; charset=utf-8');
    case '/bad-json':
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end('{"not": json');
    case '/text':
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-custom': 'yes' });
      return response.end('hello, wörld');
    case '/latin1':
      response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      return response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    case '/png':
      response.writeHead(200, { 'content-type': 'image/png' });
      return response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    case '/empty':
      response.writeHead(204);
      return response.end();
    case '/echo': {
      const body = await readRequestBody(request);
      return json(200, { method: request.method, headers: request.headers, body, path: url.pathname });
    }
    case '/big-json': {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ data: 'x'.repeat(5000) }));
    }
    case '/infinite': {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'y'.repeat(16 * 1024);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) {
          /* fill the socket buffer */
        }
        if (!response.destroyed) response.once('drain', pump);
      };
      return pump();
    }
    case '/encoded': {
      const coding = url.searchParams.get('coding') ?? 'gzip';
      const body = Buffer.from(JSON.stringify({ encoded: coding, text: 'é'.repeat(100) }));
      const encode = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[coding] ?? ((b: Buffer) => b);
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      return response.end(encode(body));
    }
    case '/items/9':
      return json(404, { error: 'no such item' });
    case '/html-error':
      response.writeHead(500, { 'content-type': 'text/html' });
      return response.end('<html>\n  <body>\n\n    <h1>Internal\tError</h1>\n  </body>\n</html>\n');
    case '/hang':
      return; // never answers
    case '/slow-body':
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first part;');
      return; // the rest never comes
    case '/status': {
      const status = Number(url.searchParams.get('code'));
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      const retryAfter = url.searchParams.get('retry-after');
      if (retryAfter) headers['retry-after'] = retryAfter;
      response.writeHead(status, headers);
      return response.end(url.searchParams.get('body') ?? `status ${status} body`);
    }
    case '/redirect': {
      response.writeHead(Number(url.searchParams.get('code') ?? 302), { location: url.searchParams.get('to') ?? '/' });
      return response.end('moved');
    }
    case '/chain': {
      const left = Number(url.searchParams.get('n'));
      if (left === 0) return json(200, { arrived: true });
      response.writeHead(302, { location: `/chain?n=${left - 1}` });
      return response.end();
    }
    default:
      response.writeHead(404, { 'content-type': 'text/plain' });
      return response.end('no such route');
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.destroy(error as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Calls the tool the way the executor does: arguments through the schema, then execute. */
function http(options: HttpRequestOptions = {}) {
  const tool = createHttpRequestTool(options);
  return async (input: HttpRequestInput, context = createTestContext()) =>
    tool.execute(tool.inputSchema.parse(input), context);
}

const request = http();

describe('http_request', () => {
  it('declares its schema, side effects and sensitive headers', () => {
    const tool = createHttpRequestTool();
    expect(tool).toMatchObject({ name: 'http_request', sideEffect: 'write' });
    expect(tool.description).toContain('Allowed hosts: 127.0.0.1, localhost, ::1');
    expect(tool.sideEffectOf?.({ url: 'x', method: 'GET' })).toBe('read');
    expect(tool.sideEffectOf?.({ url: 'x', method: 'HEAD' })).toBe('read');
    expect(tool.sideEffectOf?.({ url: 'x', method: 'POST' })).toBe('write');
    expect(tool.sideEffectOf?.({ url: 'x', method: 'DELETE' })).toBe('write');
    expect(httpSideEffect({})).toBe('read');
    expect(httpSideEffect({ method: 'patch' })).toBe('write');
    expect(tool.sensitivePaths).toEqual(
      expect.arrayContaining(['headers.authorization', 'headers.cookie', 'headers.x-api-key']),
    );
    const schema = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as unknown as {
      properties: Record<string, { description?: string; default?: unknown }>;
      required: string[];
    };
    expect(schema.required).toEqual(['url']);
    expect(schema.properties.method?.default).toBe('GET');
    for (const field of ['url', 'method', 'headers', 'body'])
      expect(schema.properties[field]?.description).toBeTruthy();
  });

  describe('responses', () => {
    it('parses a JSON body', async () => {
      const output = await request({ url: `${base}/json` });
      expect(output).toMatchObject({
        url: `${base}/json`,
        status: 200,
        statusText: 'OK',
        body: { hello: 'world', items: [1, 2, 3] },
        bodyFormat: 'json',
        truncated: false,
        redirects: [],
      });
      expect(output.headers['content-type']).toBe('application/json');
      expect(output.note).toBeUndefined();
    });

    it('parses +json media types', async () => {
      expect(await request({ url: `${base}/problem` })).toMatchObject({ body: { title: 'ok' }, bodyFormat: 'json' });
    });

    it('returns JSON that does not parse as text, with a note', async () => {
      const output = await request({ url: `${base}/bad-json` });
      expect(output).toMatchObject({ body: '{"not": json', bodyFormat: 'text' });
      expect(output.note).toMatch(/does not parse/);
    });

    it('returns text bodies and response headers', async () => {
      const output = await request({ url: `${base}/text` });
      expect(output).toMatchObject({ body: 'hello, wörld', bodyFormat: 'text', bodyBytes: 13 });
      expect(output.headers['x-custom']).toBe('yes');
    });

    it('decodes the declared charset', async () => {
      expect((await request({ url: `${base}/latin1` })).body).toBe('café');
    });

    it('leaves binary bodies out, saying what they are', async () => {
      const output = await request({ url: `${base}/png` });
      expect(output).toMatchObject({ body: null, bodyFormat: 'binary' });
      expect(output.note).toMatch(/PNG image/);
    });

    it('handles empty bodies and HEAD', async () => {
      expect(await request({ url: `${base}/empty` })).toMatchObject({ status: 204, body: null, bodyFormat: 'empty' });
      expect(await request({ url: `${base}/json`, method: 'HEAD' })).toMatchObject({
        status: 200,
        body: null,
        bodyFormat: 'empty',
      });
    });

    it.each(['gzip', 'deflate', 'br'])('decodes a %s body, and asks for compressed bodies', async (coding) => {
      const output = await request({ url: `${base}/encoded?coding=${coding}` });
      expect(output).toMatchObject({
        body: { encoded: coding, text: 'é'.repeat(100) },
        bodyFormat: 'json',
        bodyBytes: Buffer.byteLength(JSON.stringify({ encoded: coding, text: 'é'.repeat(100) })),
      });
      expect(output.headers['content-encoding']).toBe(coding);
      const echo = await request({ url: `${base}/echo` });
      expect((echo.body as { headers: Record<string, string> }).headers['accept-encoding']).toBe('gzip, deflate, br');
    });

    it('returns a body in an unknown coding as it came, with a note', async () => {
      // The test server cannot make zstd: it sends the JSON as is, which is what comes back.
      const output = await request({ url: `${base}/encoded?coding=zstd` });
      expect(output).toMatchObject({ body: { encoded: 'zstd' }, headers: { 'content-encoding': 'zstd' } });
      expect(output.note).toMatch(/"zstd", which is not decoded/);
    });

    it('sends the method, headers and body', async () => {
      const output = await request({
        url: `${base}/echo`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Trace': 'abc' },
        body: '{"a":1}',
      });
      expect(output.body).toMatchObject({
        method: 'POST',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      });
    });
  });

  describe('size cap', () => {
    it('cuts a large body at the cap, flags it and stops the transfer', async () => {
      const output = await http({ maxResponseBytes: 1000 })({ url: `${base}/infinite` });
      expect(output).toMatchObject({ truncated: true, bodyBytes: 1000, bodyFormat: 'text' });
      expect(output.body).toBe('y'.repeat(1000));
      expect(output.note).toMatch(/cut at 1000 bytes/);
      await expect.poll(() => aborted.has('/infinite')).toBe(true);
    });

    it('returns cut JSON as text', async () => {
      const output = await http({ maxResponseBytes: 100 })({ url: `${base}/big-json` });
      expect(output).toMatchObject({ truncated: true, bodyFormat: 'text' });
      expect(output.note).toMatch(/JSON was cut/);
    });
  });

  describe('host allowlist', () => {
    it.each([
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://example.com/',
      'http://0.0.0.0/',
      'http://127.0.0.1.nip.io/',
      'http://127.0.0.1@evil.com/',
      'http://evil.com#@127.0.0.1/',
      'http://[::ffff:127.0.0.1]/',
      'https://localhost.evil.com/',
    ])('refuses %s before sending anything', async (url) => {
      const error = await expectToolError(request({ url }));
      expect(error).toMatchObject({ code: 'HOST_NOT_ALLOWED', kind: 'permission', retryable: false });
      expect(error.message).toMatch(/Allowed hosts: 127\.0\.0\.1, localhost, ::1/);
    });

    it('declares a permission check that refuses hosts off the allowlist, naming the config file', () => {
      const tool = createHttpRequestTool({
        configFile: '/etc/ts/toolscope.config.json',
        denyHosts: ['127.0.0.1:3000'],
      });
      const check = (url: string) => tool.checkPermission?.(tool.inputSchema.parse({ url }));
      expect(check('http://example.com/x')).toEqual({
        check: 'http allowlist',
        message:
          'The host "example.com" is not on the HTTP allowlist (http.allow in /etc/ts/toolscope.config.json). ' +
          'Allowed hosts: 127.0.0.1, localhost, ::1.',
        hint: 'Do not retry this host; use an allowed one, or ask the user to add it to the HTTP allowlist.',
        details: {
          host: 'example.com',
          allow: ['127.0.0.1', 'localhost', '::1'],
          configFile: '/etc/ts/toolscope.config.json',
        },
      });
      expect(check('http://127.0.0.1@evil.com/')?.message).toContain('"evil.com"');
      expect(check('http://127.0.0.1:3000/api/v1/traces')).toMatchObject({
        check: 'http allowlist',
        message: expect.stringContaining('"127.0.0.1:3000" is Toolscope\'s own API'),
      });
      expect(check(`${base}/json`)).toBeNull();
      // Not a URL, or not http: the execute stage's parameter errors, not a policy refusal.
      expect(check('not a url')).toBeNull();
      expect(check('file:///etc/passwd')).toBeNull();
    });

    it('says the defaults are in use when no config file is', () => {
      const tool = createHttpRequestTool({ configFile: null });
      expect(tool.checkPermission?.(tool.inputSchema.parse({ url: 'https://example.com/' }))?.message).toMatch(
        /\(http\.allow; no config file is in use, so these are the defaults — to change them, create toolscope\.config\.json in the working folder or the data folder\)/,
      );
    });

    it('names the real host of a userinfo trick', async () => {
      const error = await expectToolError(request({ url: 'http://127.0.0.1@evil.com/' }));
      expect(error.message).toContain('"evil.com"');
    });

    it('refuses credentials in the URL even for an allowed host', async () => {
      const error = await expectToolError(request({ url: `http://user:pass@127.0.0.1:${port}/json` }));
      expect(error).toMatchObject({ code: 'CREDENTIALS_IN_URL', kind: 'parameter' });
    });

    it.each(['file:///etc/passwd', 'ftp://127.0.0.1/', 'javascript:alert(1)', 'data:text/plain,hi'])(
      'refuses the protocol of %s',
      async (url) => {
        expect((await expectToolError(request({ url }))).code).toBe('UNSUPPORTED_PROTOCOL');
      },
    );

    it.each(['not a url', '/relative/path', 'http://'])('refuses the malformed URL %j', async (url) => {
      expect((await expectToolError(request({ url }))).code).toBe('INVALID_URL');
    });

    it('refuses everything with an empty allowlist', async () => {
      const error = await expectToolError(http({ allowHosts: [] })({ url: `${base}/json` }));
      expect(error.message).toMatch(/Allowed hosts: none/);
    });

    it('honours ports in the allowlist', async () => {
      await expect(http({ allowHosts: [`127.0.0.1:${port}`] })({ url: `${base}/json` })).resolves.toMatchObject({
        status: 200,
      });
      const error = await expectToolError(http({ allowHosts: ['127.0.0.1:1'] })({ url: `${base}/json` }));
      expect(error.code).toBe('HOST_NOT_ALLOWED');
    });
  });

  describe('redirects', () => {
    const redirect = (to: string, code = 302) => `${base}/redirect?code=${code}&to=${encodeURIComponent(to)}`;

    it('follows redirects and lists them', async () => {
      const output = await request({ url: `${base}/chain?n=3` });
      expect(output).toMatchObject({ status: 200, body: { arrived: true }, url: `${base}/chain?n=0` });
      expect(output.redirects).toEqual([`${base}/chain?n=2`, `${base}/chain?n=1`, `${base}/chain?n=0`]);
    });

    it('stops after the maximum number of redirects', async () => {
      expect(await request({ url: `${base}/chain?n=5` })).toMatchObject({ redirects: expect.any(Array) });
      const error = await expectToolError(request({ url: `${base}/chain?n=6` }));
      expect(error).toMatchObject({ code: 'TOO_MANY_REDIRECTS', kind: 'business' });
      expect((await expectToolError(http({ maxRedirects: 0 })({ url: `${base}/chain?n=1` }))).code).toBe(
        'TOO_MANY_REDIRECTS',
      );
    });

    it.each([
      'http://example.com/',
      'http://10.0.0.1/admin',
      'http://127.0.0.1.nip.io/',
      'http://127.0.0.1@evil.com/',
      '//evil.com/path',
    ])('refuses a redirect to %s', async (to) => {
      const error = await expectToolError(request({ url: redirect(to) }));
      expect(error).toMatchObject({ code: 'HOST_NOT_ALLOWED', kind: 'permission' });
      expect(error.message).toMatch(/redirected from/);
    });

    it('refuses a redirect to another protocol', async () => {
      const error = await expectToolError(request({ url: redirect('file:///etc/passwd') }));
      expect(error.code).toBe('UNSUPPORTED_PROTOCOL');
    });

    it('turns a POST into a GET without body on 303, keeps both on 307', async () => {
      const post = { method: 'POST' as const, body: 'payload', headers: { 'content-type': 'text/plain' } };
      const after303 = await request({ url: redirect('/echo', 303), ...post });
      expect(after303.body).toMatchObject({ method: 'GET', body: '' });
      expect((after303.body as { headers: Record<string, string> }).headers['content-type']).toBeUndefined();
      const after307 = await request({ url: redirect('/echo', 307), ...post });
      expect(after307.body).toMatchObject({ method: 'POST', body: 'payload' });
    });

    it('keeps credentials on a same-origin redirect and drops them on a cross-origin one', async () => {
      const headers = { authorization: 'Bearer secret', cookie: 'session=1', 'x-other': 'kept' };
      const same = await request({ url: redirect('/echo'), headers });
      expect((same.body as { headers: Record<string, string> }).headers).toMatchObject(headers);
      const cross = await request({ url: redirect(`http://localhost:${port}/echo`), headers });
      const received = (cross.body as { headers: Record<string, string> }).headers;
      expect(received.authorization).toBeUndefined();
      expect(received.cookie).toBeUndefined();
      expect(received['x-other']).toBe('kept');
    });
  });

  describe('error statuses', () => {
    const status = (code: number, extra = '') => `${base}/status?code=${code}${extra}`;

    it('makes 503 a retryable temporary error with the status and Retry-After', async () => {
      const error = await expectToolError(request({ url: status(503, '&retry-after=2') }));
      expect(error).toMatchObject({
        code: 'HTTP_ERROR',
        kind: 'temporary',
        retryable: true,
        details: { status: 503, retryAfterMs: 2000, body: 'status 503 body' },
      });
      expect(error.message).toBe(
        `HTTP 503 Service Unavailable from GET ${status(503, '&retry-after=2')}: status 503 body`,
      );
    });

    it.each([
      ['GET', 500, true],
      ['PUT', 502, true],
      ['DELETE', 504, true],
      ['POST', 429, true],
      ['POST', 503, true],
      ['POST', 500, false],
      ['PATCH', 502, false],
    ] as const)('%s answered %i is temporary, retryable: %s', async (method, code, retryable) => {
      const error = await expectToolError(request({ url: status(code), method }));
      expect(error).toMatchObject({ code: 'HTTP_ERROR', kind: 'temporary', retryable, details: { status: code } });
      if (!retryable) expect(error.hint).toMatch(/may or may not have been processed/);
    });

    it.each([400, 401, 403, 404, 422])('makes %i a business error with a body excerpt', async (code) => {
      const error = await expectToolError(request({ url: status(code) }));
      expect(error).toMatchObject({
        code: 'HTTP_ERROR',
        kind: 'business',
        retryable: false,
        details: { status: code, body: `status ${code} body` },
      });
      expect(error.hint).toBeTruthy();
    });

    it('quotes the start of the body in the message the model reads', async () => {
      const error = await expectToolError(request({ url: `${base}/items/9` }));
      expect(error.message).toBe(`HTTP 404 Not Found from GET ${base}/items/9: {"error":"no such item"}`);
      const html = await expectToolError(request({ url: `${base}/html-error` }));
      expect(html.message).toBe(
        `HTTP 500 Internal Server Error from GET ${base}/html-error: <html> <body> <h1>Internal Error</h1> </body> </html>`,
      );
    });

    it('cuts a long body in the message, and says so', async () => {
      const error = await expectToolError(request({ url: status(400, `&body=${'e'.repeat(2000)}`) }));
      expect(error.message).toBe(
        `HTTP 400 Bad Request from GET ${status(400, `&body=${'e'.repeat(2000)}`)}: ${'e'.repeat(400)}… (cut)`,
      );
      const empty = await expectToolError(request({ url: status(404, '&body=') }));
      expect(empty.message).toBe(`HTTP 404 Not Found from GET ${status(404, '&body=')}`);
    });

    it('keeps the body excerpt short', async () => {
      const error = await expectToolError(request({ url: status(400, `&body=${'e'.repeat(2000)}`) }));
      expect(String(error.details?.body)).toHaveLength(501);
    });
  });

  describe('failures before a response', () => {
    it('reports a refused connection as a retryable temporary error', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const error = await expectToolError(request({ url: `http://127.0.0.1:${closedPort}/` }));
      expect(error).toMatchObject({ code: 'CONNECTION_REFUSED', kind: 'temporary', retryable: true });
    });

    it('refuses a body on GET and invalid headers', async () => {
      expect((await expectToolError(request({ url: `${base}/json`, body: 'x' }))).code).toBe('BODY_NOT_ALLOWED');
      // The schema refuses it first (below); execute still checks when called without it.
      const tool = createHttpRequestTool();
      const unchecked = { url: `${base}/json`, method: 'GET' as const, headers: { 'bad header': 'x' } };
      const error = await expectToolError(async () => tool.execute(unchecked, createTestContext()));
      expect(error).toMatchObject({ code: 'INVALID_HEADER', kind: 'parameter' });
    });

    it.each(['connection', 'Transfer-Encoding', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer'])(
      'refuses the connection-level header %s, which the tool manages',
      async (name) => {
        const error = await expectToolError(request({ url: `${base}/json`, headers: { [name]: 'x' } }));
        expect(error).toMatchObject({ code: 'INVALID_HEADER', kind: 'parameter' });
      },
    );

    it('sends the true content-length of the body, whatever the model said', async () => {
      const output = await request({
        url: `${base}/echo`,
        method: 'POST',
        body: 'four',
        headers: { 'content-length': '999' },
      });
      expect(output.body).toMatchObject({ body: 'four', headers: { 'content-length': '4' } });
    });

    it('refuses empty and invalid header names in the schema, with messages the model can act on', () => {
      const tool = createHttpRequestTool();
      const result = validateInput('http_request', tool.inputSchema, {
        url: `${base}/json`,
        headers: { '': 'a', 'bad header': 'b', 'x:y': 'c', 'x-ok': 'd', 'x-split': 'a\r\nInjected: 1' },
      });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.details?.issues).toEqual([
        {
          path: 'headers.',
          message: 'A header name cannot be empty; give each header a name, e.g. "content-type".',
          code: 'invalid_key',
        },
        { path: 'headers.bad header', message: expect.stringMatching(/^Not a valid header name/), code: 'invalid_key' },
        { path: 'headers.x:y', message: expect.stringMatching(/no spaces or colons/), code: 'invalid_key' },
        {
          path: 'headers.x-split',
          message: 'A header value cannot contain line breaks or NUL.',
          code: 'invalid_format',
        },
      ]);
      const schema = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as unknown as {
        properties: { headers: { propertyNames: { minLength: number; pattern: string } } };
      };
      expect(schema.properties.headers.propertyNames).toMatchObject({ minLength: 1 });
      expect(new RegExp(schema.properties.headers.propertyNames.pattern).test('content-type')).toBe(true);
    });
  });

  describe('abort', () => {
    it('rejects with the abort reason while waiting for headers, and closes the connection', async () => {
      const controller = new AbortController();
      const pending = request({ url: `${base}/hang` }, createTestContext({ signal: controller.signal }));
      // The request is at the server: the tool waits for the headers.
      await expect.poll(() => received.has('/hang')).toBe(true);
      const reason = new DOMException('The operation timed out.', 'TimeoutError');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      await expect.poll(() => aborted.has('/hang')).toBe(true);
    });

    it('rejects with the abort reason while reading the body', async () => {
      // The call's timeout fires once the server has sent the headers and the first part of the
      // body: its signal aborts with the TimeoutError that `AbortSignal.timeout` gives.
      const timeout = new AbortController();
      const pending = request({ url: `${base}/slow-body` }, createTestContext({ signal: timeout.signal }));
      await expect.poll(() => received.has('/slow-body')).toBe(true);
      const started = Date.now();
      timeout.abort(new DOMException('The operation timed out.', 'TimeoutError'));
      await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
      // Within 2 s on the reference machine at rest, stretched by the machine's crowding.
      expect(Date.now() - started).toBeLessThan(2_000 * crowding());
      await expect.poll(() => aborted.has('/slow-body')).toBe(true);
    });

    it('does not send anything when the signal has already fired', async () => {
      const reason = new Error('cancelled');
      const pending = request({ url: `${base}/json` }, createTestContext({ signal: AbortSignal.abort(reason) }));
      await expect(pending).rejects.toBe(reason);
    });
  });
});
