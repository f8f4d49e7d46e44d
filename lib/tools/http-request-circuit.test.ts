import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { createExecutor } from '../executor/executor';
import { createRegistry } from '../executor/registry';
import { freePort } from '../server/testing/free-port';
import { createHttpRequestTool, httpCircuitKey } from './http-request';
import { withToolSettings } from './tool-settings';

/**
 * `http_request`'s breaker is per host:port, through the real executor and real sockets on
 * loopback (the tool's default allowlist): a host answering 500 and a port where nothing listens
 * each open their own breaker, and a healthy host keeps being called.
 */
let failing: Server;
let healthy: Server;
let failingUrl: string;
let healthyUrl: string;
let refusedUrl: string;

function listen(handler: Parameters<typeof createServer>[1]): Promise<[Server, string]> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve([server, `127.0.0.1:${(server.address() as AddressInfo).port}`])),
  );
}

beforeAll(async () => {
  [failing, failingUrl] = await listen((_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('broken');
  });
  [healthy, healthyUrl] = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  refusedUrl = `127.0.0.1:${await freePort()}`;
});

afterAll(async () => {
  await Promise.all([failing, healthy].map((s) => new Promise((resolve) => s.close(resolve))));
});

function setup() {
  // One attempt per call, so two failed calls open the breaker; a minute before the trial.
  const tool = withToolSettings(createHttpRequestTool(), {
    retries: 1,
    circuitBreaker: { failureThreshold: 2, cooldownMs: 60_000 },
  });
  const executor = createExecutor({ registry: createRegistry([tool]), sink: createMemoryTraceStore() });
  const get = (hostPort: string) =>
    executor.execute({ name: 'http_request', arguments: { url: `http://${hostPort}/x` } });
  return { executor, get };
}

describe('http_request circuit breaker per host', () => {
  it('keys by the URL host:port, default port filled in', () => {
    expect(httpCircuitKey({ url: 'http://Example.COM/a?b' })).toBe('example.com:80');
    expect(httpCircuitKey({ url: 'https://example.com/' })).toBe('example.com:443');
    expect(httpCircuitKey({ url: 'http://127.0.0.1:8080/x' })).toBe('127.0.0.1:8080');
    expect(httpCircuitKey({ url: 'http://[::1]:9/' })).toBe('[::1]:9');
    expect(httpCircuitKey({ url: 'ftp://example.com/' })).toBeNull();
    expect(httpCircuitKey({ url: 'not a url' })).toBeNull();
  });

  it('a host answering 500 opens its own breaker; a healthy host is still called', async () => {
    const { executor, get } = setup();
    const first = await get(failingUrl);
    const second = await get(failingUrl);
    expect(first.error?.code).toBe('HTTP_ERROR');
    expect(second.error?.code).toBe('HTTP_ERROR');

    const blocked = await get(failingUrl);
    expect(blocked.error?.code).toBe('CIRCUIT_OPEN');
    expect(blocked.metadata.attempts).toBe(0);
    expect(blocked.error?.message).toContain(`http_request to ${failingUrl} is paused`);
    expect(blocked.error?.message).toMatch(/the next call goes through as a trial at \d{4}-\d\d-\d\dT.*Z \(in \d+ s\)/);

    const fine = await get(healthyUrl);
    expect(fine.success).toBe(true);
    expect(fine.output).toMatchObject({ status: 200 });

    expect(executor.circuitState('http_request')).toBe('open');
    expect(executor.circuits('http_request')).toEqual([
      expect.objectContaining({ key: failingUrl, state: 'open', failures: [first.traceId, second.traceId] }),
    ]);
  });

  it('a port where nothing listens opens its own breaker too, and a reset of that host lets it be tried again', async () => {
    const { executor, get } = setup();
    expect((await get(refusedUrl)).error?.code).toBe('CONNECTION_REFUSED');
    expect((await get(refusedUrl)).error?.code).toBe('CONNECTION_REFUSED');
    expect((await get(refusedUrl)).error?.code).toBe('CIRCUIT_OPEN');
    expect((await get(healthyUrl)).success).toBe(true);
    expect(executor.circuits('http_request').map((c) => c.key)).toEqual([refusedUrl]);

    expect(executor.resetCircuits('http_request', refusedUrl)).toEqual([refusedUrl]);
    expect((await get(refusedUrl)).error?.code).toBe('CONNECTION_REFUSED');
  });
});
