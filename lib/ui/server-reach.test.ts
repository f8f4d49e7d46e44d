import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { appOf } from '../http/testing/call-app';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { freePort } from '../server/testing/free-port';
import { testToolscopes } from '../server/testing/test-toolscopes';
import type { ServerReach } from './event-stream-connection';
import { createLoginCheck, loginPathFor, PROBE_SPACING_MS, probeServer } from './server-reach';
import { fetchOrUnreachable, isUnreachableError, NOT_REACHABLE } from './unreachable';

const toolscopes = testToolscopes('toolscope-server-reach-');

/** `fetch` of a page of this Toolscope: relative URLs go to its HTTP app, in process. */
const pageFetch = (ts: Toolscope): typeof fetch =>
  (async (input: string | URL | Request, init?: RequestInit) =>
    appOf(ts).request(`http://127.0.0.1:3000${String(input)}`, {
      ...init,
      headers: { host: '127.0.0.1:3000', ...(init?.headers as Record<string, string>) },
    })) as typeof fetch;

describe('probeServer', () => {
  it('tells a server that answers, one that wants a login, and one that does not answer apart', async () => {
    const local = toolscopes.start(toolscopes.dataDir());
    expect(await probeServer(pageFetch(local))).toBe('ok');

    const dir = toolscopes.dataDir();
    const guarded = createToolscope(
      loadConfig({ TOOLSCOPE_DATA_DIR: dir, TOOLSCOPE_TOKEN: 'reach-token-0123456789' }, dir),
    );
    try {
      expect(await probeServer(pageFetch(guarded))).toBe('unauthenticated');
    } finally {
      await guarded.stop({ by: 'test' });
      guarded.close();
    }

    const port = await freePort();
    const nothing = ((input: string | URL | Request, init?: RequestInit) =>
      fetch(`http://127.0.0.1:${port}${String(input)}`, init)) as typeof fetch;
    expect(await probeServer(nothing)).toBe('unreachable');
  });
});

describe('loginPathFor', () => {
  it('goes to the login page with the path and query to come back to; never from the login page', () => {
    expect(loginPathFor('/traces/abc?x=1')).toBe('/login?next=%2Ftraces%2Fabc%3Fx%3D1');
    expect(loginPathFor('/')).toBe('/login?next=%2F');
    expect(loginPathFor('/login')).toBeNull();
    expect(loginPathFor('/login?next=%2F')).toBeNull();
  });
});

describe('createLoginCheck', () => {
  it('probes after a failure, one at a time and at most once per PROBE_SPACING_MS; a 401 calls onUnauthenticated', async () => {
    let now = 0;
    const answers: ((reach: ServerReach) => void)[] = [];
    let unauthenticated = 0;
    const check = createLoginCheck({
      probe: () => new Promise((resolve) => answers.push(resolve)),
      onUnauthenticated: () => {
        unauthenticated += 1;
      },
      now: () => now,
    });
    const first = check.failed();
    void check.failed();
    expect(answers).toHaveLength(1);
    answers[0]!('unreachable');
    await first;
    now = PROBE_SPACING_MS - 1;
    await check.failed();
    expect(answers).toHaveLength(1);
    now = PROBE_SPACING_MS;
    const second = check.failed();
    answers[1]!('unauthenticated');
    await second;
    expect(unauthenticated).toBe(1);
  });
});

describe('fetchOrUnreachable', () => {
  it('turns no answer into "not sent: Toolscope is not reachable"; an HTTP error answer is an answer', async () => {
    const port = await freePort();
    const error = await fetchOrUnreachable(`http://127.0.0.1:${port}/api/v1/faults`, { method: 'POST' }).catch(
      (e: unknown) => e,
    );
    expect(isUnreachableError(error)).toBe(true);
    expect((error as Error).message).toBe(NOT_REACHABLE);
    expect(NOT_REACHABLE).toBe('not sent: Toolscope is not reachable');
  });
});
