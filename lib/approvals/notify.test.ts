import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NotifyTarget } from '../config';
import { makeTrace } from '../db/trace-store-suite';
import { createManualClock, type ManualClock } from '../executor/manual-clock';
import type { TraceRecord } from '../executor/types';
import {
  type ApprovalNotifier,
  createApprovalNotifier,
  MAX_QUEUED,
  NOTIFY_ATTEMPTS,
  NOTIFY_TIMEOUT_MS,
  type NotifyFailure,
  signatureOf,
} from './notify';

/**
 * Approval webhooks (`createApprovalNotifier`) against a real HTTP receiver on 127.0.0.1: the
 * JSON notice's fields from a trace record, the HMAC signature header only with a secret, Slack's
 * `{ text }`, retries after a 500 and after no answer, a receiver that always fails ending as a
 * failure (its URL's query not shown) after NOTIFY_ATTEMPTS, `notify` returning before anything
 * is sent, and the bounded queue. Time is a manual clock, so the 1+2+4+8 s of backoff and the
 * 5 s timeout take no real time.
 */

const LINK_BASE = 'https://toolscope.example';
const WAIT = { timeout: 15_000, interval: 5 };

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers to its n-th request (0-based): a status, or `hold` to answer later. */
type Answer = (n: number) => number | 'hold';

interface Receiver {
  url: string;
  received: Received[];
  /** Answers the requests held so far with `status`. */
  release(status: number): void;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const n = received.length;
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = answer(n);
      if (status === 'hold') held.push(res);
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    release(status) {
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  cleanups.push(() => receiver.close());
  return receiver;
}

/** A port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The manual clock, noting the delay of each timer set: a retry's backoff shows as its delay. */
function recordingClock(): ManualClock & { delays: number[] } {
  const clock = createManualClock(Date.UTC(2026, 0, 1));
  const delays: number[] = [];
  return {
    ...clock,
    delays,
    setTimeout(callback, ms) {
      delays.push(ms);
      return clock.setTimeout(callback, ms);
    },
  };
}

function notifierFor(
  targets: NotifyTarget[],
  clock: ManualClock = recordingClock(),
  onFailure?: (failure: NotifyFailure) => void,
): ApprovalNotifier {
  const notifier = createApprovalNotifier({ targets, linkBase: LINK_BASE, clock, onFailure });
  cleanups.push(async () => {
    notifier.close();
    await notifier.drain(5_000);
  });
  return notifier;
}

/** A call by the agent key `bot` waiting for approval (or decided by alice), its arguments redacted. */
function approvalTrace(decided = false): TraceRecord {
  const requestedAt = Date.UTC(2026, 0, 1, 9, 30);
  return makeTrace({
    tool: 'write_file',
    sideEffect: 'write',
    status: decided ? 'denied' : 'awaiting_approval',
    arguments: { path: 'notes/a.md', content: 'x', token: '[REDACTED]' },
    principal: { id: 'key_bot', name: 'bot', role: 'agent' },
    approval: {
      rule: 'default for write: ask',
      requestedAt,
      expiresAt: requestedAt + 600_000,
      decision: decided ? 'denied' : null,
      by: decided ? 'alice' : null,
      decidedBy: decided ? { id: 'key_alice', name: 'alice', role: 'reviewer' } : null,
      decidedAt: decided ? requestedAt + 60_000 : null,
      reason: decided ? 'not in notes/' : null,
      ruleCreated: null,
    },
  });
}

/** Waits until the notifier has set a retry timer of `ms` (its `count`-th), then moves the clock past it. */
async function retryAfter(clock: ReturnType<typeof recordingClock>, ms: number, count = 1) {
  await vi.waitFor(() => expect(clock.delays.filter((delay) => delay === ms)).toHaveLength(count), WAIT);
  await clock.advance(ms);
}

describe('createApprovalNotifier', () => {
  it('POSTs a requested approval as JSON, unsigned without a secret', async () => {
    const receiver = await startReceiver();
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }]);
    const trace = approvalTrace();
    notifier.notify(trace, 'requested');
    await notifier.drain(10_000);

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hook');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('toolscope');
    expect(request?.headers['x-toolscope-signature']).toBeUndefined();
    expect(JSON.parse(request?.body ?? '')).toEqual({
      type: 'approval.requested',
      trace_id: trace.id,
      tool: 'write_file',
      side_effect: 'write',
      session_id: 'session-1',
      arguments: { path: 'notes/a.md', content: 'x', token: '[REDACTED]' },
      principal: { id: 'key_bot', name: 'bot', role: 'agent' },
      rule: 'default for write: ask',
      requested_at: '2026-01-01T09:30:00.000Z',
      expires_at: '2026-01-01T09:40:00.000Z',
      decision: null,
      decided_by: null,
      reason: null,
      url: `${LINK_BASE}/approvals?trace=${trace.id}`,
    });
    expect(notifier.status()).toEqual({ targets: 1, pending: 0, failures: [] });
  });

  it('POSTs a decided approval with its decision, who decided, why, and a link to the trace', async () => {
    const receiver = await startReceiver();
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }]);
    const trace = approvalTrace(true);
    notifier.notify(trace, 'decided');
    await notifier.drain(10_000);
    expect(JSON.parse(receiver.received[0]?.body ?? '')).toMatchObject({
      type: 'approval.decided',
      trace_id: trace.id,
      principal: { id: 'key_bot', name: 'bot', role: 'agent' },
      decision: 'denied',
      decided_by: { id: 'key_alice', name: 'alice', role: 'reviewer' },
      reason: 'not in notes/',
      url: `${LINK_BASE}/traces/${trace.id}`,
    });
  });

  it('signs the exact body with the target secret: x-toolscope-signature: sha256=<HMAC-SHA256>', async () => {
    const receiver = await startReceiver();
    const notifier = notifierFor([
      { url: `${receiver.url}?signed=1`, format: 'json', secret: 'shh-its-a-secret' },
      { url: `${receiver.url}?signed=0`, format: 'json' },
    ]);
    notifier.notify(approvalTrace(), 'requested');
    await notifier.drain(10_000);

    const signed = receiver.received.find((request) => request.url.endsWith('signed=1'));
    const unsigned = receiver.received.find((request) => request.url.endsWith('signed=0'));
    if (!signed || !unsigned) throw new Error('each target gets one POST');
    const expected = `sha256=${createHmac('sha256', 'shh-its-a-secret').update(signed.body).digest('hex')}`;
    expect(signed.headers['x-toolscope-signature']).toBe(expected);
    expect(signatureOf(signed.body, 'shh-its-a-secret')).toBe(expected);
    expect(unsigned.headers['x-toolscope-signature']).toBeUndefined();
    // The secret itself is never sent.
    expect(JSON.stringify(receiver.received)).not.toContain('shh-its-a-secret');
  });

  it("sends Slack's format: one `text`, with the tool, the caller and the link", async () => {
    const receiver = await startReceiver();
    const notifier = notifierFor([{ url: receiver.url, format: 'slack' }]);
    const trace = approvalTrace();
    notifier.notify(trace, 'requested');
    notifier.notify(approvalTrace(true), 'decided');
    await notifier.drain(10_000);

    const [requested, decided] = receiver.received.map((request) => JSON.parse(request.body));
    expect(Object.keys(requested)).toEqual(['text']);
    expect(requested.text).toContain('`write_file`');
    expect(requested.text).toContain('bot (agent)');
    expect(requested.text).toContain('default for write: ask');
    expect(requested.text).toContain(`<${LINK_BASE}/approvals?trace=${trace.id}|`);
    expect(Object.keys(decided)).toEqual(['text']);
    expect(decided.text).toContain('denied by alice: not in notes/');
  });

  it('returns from notify before anything is sent, and goes on without the call', async () => {
    const receiver = await startReceiver(() => 'hold');
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }]);
    notifier.notify(approvalTrace(), 'requested');
    // Nothing was sent within the call; the delivery waits its turn.
    expect(receiver.received).toHaveLength(0);
    expect(notifier.status().pending).toBe(1);

    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), WAIT);
    expect(notifier.status().pending).toBe(1);
    receiver.release(204);
    await notifier.drain(10_000);
    expect(notifier.status()).toEqual({ targets: 1, pending: 0, failures: [] });
  });

  it('does nothing without targets, or once closed', async () => {
    const none = notifierFor([]);
    none.notify(approvalTrace(), 'requested');
    expect(none.status()).toEqual({ targets: 0, pending: 0, failures: [] });

    const receiver = await startReceiver();
    const closed = notifierFor([{ url: receiver.url, format: 'json' }]);
    closed.close();
    closed.notify(approvalTrace(), 'requested');
    expect(closed.status().pending).toBe(0);
    await closed.drain(1_000);
    expect(receiver.received).toHaveLength(0);
  });

  it('retries a receiver that answered 500, one second later, and succeeds', async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 500 : 204));
    const clock = recordingClock();
    const failures: NotifyFailure[] = [];
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }], clock, (f) => failures.push(f));
    notifier.notify(approvalTrace(), 'requested');

    await retryAfter(clock, 1_000);
    await notifier.drain(10_000);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    expect(notifier.status()).toEqual({ targets: 1, pending: 0, failures: [] });
    expect(failures).toEqual([]);
  });

  it('retries a receiver that gave no answer within NOTIFY_TIMEOUT_MS', async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 'hold' : 204));
    const clock = recordingClock();
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }], clock);
    notifier.notify(approvalTrace(), 'requested');
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), WAIT);

    await clock.advance(NOTIFY_TIMEOUT_MS);
    await retryAfter(clock, 1_000);
    await notifier.drain(10_000);
    expect(receiver.received).toHaveLength(2);
    expect(notifier.status().failures).toEqual([]);
  });

  it('gives up after NOTIFY_ATTEMPTS, 1, 2, 4 and 8 s apart: a failure naming the origin only (no path, no query)', async () => {
    const receiver = await startReceiver(() => 500);
    const clock = recordingClock();
    const failures: NotifyFailure[] = [];
    const notifier = notifierFor([{ url: `${receiver.url}?token=s3cret-in-query`, format: 'json' }], clock, (failure) =>
      failures.push(failure),
    );
    const trace = approvalTrace();
    notifier.notify(trace, 'requested');

    for (const backoff of [1_000, 2_000, 4_000, 8_000]) await retryAfter(clock, backoff);
    await vi.waitFor(() => expect(failures).toHaveLength(1), WAIT);

    const failure: NotifyFailure = {
      target: new URL(receiver.url).origin,
      type: 'approval.requested',
      trace_id: trace.id,
      error: 'HTTP 500',
      attempts: NOTIFY_ATTEMPTS,
      at: '2026-01-01T00:00:15.000Z',
    };
    expect(failures).toEqual([failure]);
    expect(notifier.status()).toEqual({ targets: 1, pending: 0, failures: [failure] });
    expect(receiver.received).toHaveLength(NOTIFY_ATTEMPTS);
    expect(JSON.stringify(notifier.status())).not.toContain('s3cret-in-query');
  });

  it('names a network error in the failure', async () => {
    const port = await closedPort();
    const clock = recordingClock();
    const failures: NotifyFailure[] = [];
    const notifier = notifierFor([{ url: `http://127.0.0.1:${port}/hook`, format: 'json' }], clock, (f) =>
      failures.push(f),
    );
    notifier.notify(approvalTrace(), 'requested');
    for (const backoff of [1_000, 2_000, 4_000, 8_000]) await retryAfter(clock, backoff);
    await vi.waitFor(() => expect(failures).toHaveLength(1), WAIT);
    expect(failures[0]?.error).toMatch(/ECONNREFUSED/);
    expect(failures[0]?.attempts).toBe(NOTIFY_ATTEMPTS);
  });

  it('gives up a delivery in flight at close as a failure', async () => {
    const receiver = await startReceiver(() => 'hold');
    const failures: NotifyFailure[] = [];
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }], recordingClock(), (f) => failures.push(f));
    notifier.notify(approvalTrace(), 'requested');
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), WAIT);
    notifier.close();
    receiver.release(500);
    await notifier.drain(10_000);
    expect(failures.map((failure) => [failure.error, failure.attempts])).toEqual([['HTTP 500', 1]]);
    expect(notifier.status().pending).toBe(0);
  });

  it('gives up a delivery waiting for its retry at close as a failure', async () => {
    const receiver = await startReceiver(() => 500);
    const clock = recordingClock();
    const failures: NotifyFailure[] = [];
    const notifier = notifierFor([{ url: receiver.url, format: 'json' }], clock, (f) => failures.push(f));
    notifier.notify(approvalTrace(), 'requested');
    await vi.waitFor(() => expect(clock.delays).toContain(1_000), WAIT);
    notifier.close();
    await notifier.drain(1_000);
    expect(failures.map((failure) => [failure.error, failure.attempts])).toEqual([
      ['HTTP 500; Toolscope stopped before trying again', 1],
    ]);
  });

  it('bounds the deliveries not done at MAX_QUEUED, giving up the new ones past it', async () => {
    const port = await closedPort();
    const failures: NotifyFailure[] = [];
    const notifier = notifierFor([{ url: `http://127.0.0.1:${port}/hook`, format: 'json' }], recordingClock(), (f) =>
      failures.push(f),
    );
    const traces = Array.from({ length: MAX_QUEUED + 2 }, () => approvalTrace());
    for (const trace of traces) notifier.notify(trace, 'requested');

    expect(notifier.status().pending).toBe(MAX_QUEUED);
    expect(failures.map((failure) => [failure.trace_id, failure.attempts, failure.error])).toEqual([
      [traces[MAX_QUEUED]?.id, 0, `more than ${MAX_QUEUED} notifications not delivered yet: given up`],
      [traces[MAX_QUEUED + 1]?.id, 0, `more than ${MAX_QUEUED} notifications not delivered yet: given up`],
    ]);
  });

  // The bound counts deliveries in flight and waiting for their retry too, not only those queued:
  // with a receiver that is down, approvals arriving one turn apart (as they do) stay bounded.
  it('keeps the deliveries waiting bounded when approvals come one turn apart', async () => {
    const port = await closedPort();
    const notifier = notifierFor([{ url: `http://127.0.0.1:${port}/hook`, format: 'json' }], recordingClock());
    for (let i = 0; i < MAX_QUEUED + 20; i++) {
      notifier.notify(approvalTrace(), 'requested');
      await Promise.resolve(); // the notifier's pump runs
    }
    expect(notifier.status().pending).toBeLessThanOrEqual(MAX_QUEUED);
  });
});
