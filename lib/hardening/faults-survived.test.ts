import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, serverPid, startBuiltServer } from '../server/testing/built-server';
import {
  type AnsweredCall,
  canMakeImmutable,
  canMount,
  filesOutOfStep,
  fillFilesystem,
  holdWriteLock,
  missingCalls,
  mountSmallFilesystem,
  setReadOnly,
  startTraffic,
  type TrafficLog,
  waitForHealthyStore,
} from './testing/fault-traffic';
import { crowding } from './testing/machine-pace';
import { waitUntil } from './testing/processes';

// The built server (scripts/start.mjs) through the faults a store meets on a user's machine —
// another process holding the database's write lock, a full disk, a SIGKILL in the middle of
// an approval decision, an import or a retention sweep — while calls and reads go on. In each:
// no read answers 500, the server answers throughout, and every call it answered is stored
// once the fault clears. Each fault adds a row to the README's Reliability table:
// `npm run reliability` runs this file and prints it.

// biome-ignore lint/suspicious/noExplicitAny: JSON answers whose shape the test asserts on
type Json = any;

const built = await hasCurrentBuild('faults-survived');
const mountable = canMount();
const immutable = canMakeImmutable(os.tmpdir());

/** One row of the Reliability table. */
interface FaultRow {
  fault: string;
  survived: boolean;
  answered: number;
  lost: number;
  refused: number;
  reads: number;
  failedReads: number;
  note: string;
}
const rows: FaultRow[] = [];
const servers: BuiltServer[] = [];
const cleanups: (() => void)[] = [];

afterAll(() => {
  for (const server of servers) server.stop();
  for (const cleanup of cleanups) cleanup();
  const report = process.env.TOOLSCOPE_RELIABILITY_REPORT;
  if (report) fs.writeFileSync(report, `${JSON.stringify(rows, null, 2)}\n`);
});

const CALLS = {
  policies: { calculator: 'allow', write_file: 'allow' },
  limits: { maxQueuedWrites: 500 },
};

async function start(prefix: string, config: unknown, dir?: string): Promise<BuiltServer> {
  const server = await startBuiltServer(prefix, config, {}, dir);
  servers.push(server);
  return server;
}

/** SIGKILLs the server process itself (not its starter) and waits until both are gone. */
async function kill(server: BuiltServer): Promise<void> {
  process.kill(serverPid(server.child.pid as number), 'SIGKILL');
  await waitUntil(() => server.child.exitCode !== null || server.child.signalCode !== null, 10_000);
}

/** SIGTERM to the server's process group: a clean stop that keeps the data folder. */
async function stopGently(server: BuiltServer): Promise<void> {
  process.kill(-(server.child.pid as number), 'SIGTERM');
  await waitUntil(() => server.child.exitCode !== null || server.child.signalCode !== null, 30_000);
}

function record(fault: string, log: TrafficLog, lost: string[], note: string, extra: string[] = []): FaultRow {
  const row: FaultRow = {
    fault,
    survived:
      lost.length === 0 &&
      log.failedReads.length === 0 &&
      log.unexpected.length === 0 &&
      extra.length === 0 &&
      log.answered.length > 0,
    answered: log.answered.length,
    lost: lost.length,
    refused: log.refused.length,
    reads: log.reads,
    failedReads: log.failedReads.length,
    note,
  };
  rows.push(row);
  return row;
}

/** What every fault under traffic must show, once it cleared. */
async function expectNothingLost(server: BuiltServer, fault: string, log: TrafficLog, note: string) {
  const lost = await missingCalls(server, log.answered);
  const files = filesOutOfStep(path.join(server.dir, 'workspace'), log);
  const refusals = log.refused.filter((r) => r.code !== 'STORE_UNAVAILABLE' || !r.retryAfter);
  record(fault, log, lost, note, [...files, ...refusals.map((r) => JSON.stringify(r))]);
  expect(log.failedReads).toEqual([]);
  expect(log.unexpected).toEqual([]);
  expect(lost).toEqual([]);
  expect(files).toEqual([]);
  expect(refusals).toEqual([]);
  expect(log.answered.length).toBeGreaterThan(0);
}

describe.skipIf(!built)('faults survived by the built server', () => {
  it('the database locked by another process (BEGIN IMMEDIATE held for 10 s) while calls arrive', async () => {
    const server = await start('toolscope-fault-locked-', CALLS);
    const traffic = startTraffic(server, 'locked');
    await waitUntil(() => traffic.log.answered.length >= 20, 30_000);
    const answeredBefore = traffic.log.answered.length;
    const lock = await holdWriteLock(path.join(server.dir, 'toolscope.db'), 10_000);
    await lock.done;
    const answeredDuring = traffic.log.answered.length - answeredBefore;
    const degradedDuring = traffic.log.degradedSeen;
    await waitForHealthyStore(server, 30_000 * crowding());
    await new Promise((resolve) => setTimeout(resolve, 500));
    const log = await traffic.stop();
    await waitForHealthyStore(server, 30_000 * crowding());
    await expectNothingLost(
      server,
      'Database locked by another process for 10 s',
      log,
      `${answeredDuring} calls answered and ${log.refused.length} refused (503) while locked`,
    );
    // The lock was seen, and the server kept answering: no health check waited long.
    expect(degradedDuring).toBeGreaterThan(0);
    expect(log.longestHealthGapMs).toBeLessThan(2_000 * crowding());
  }, 180_000);

  it.skipIf(!mountable)(
    'the disk full (a data folder on a 48 MiB filesystem of its own)',
    async () => {
      const small = mountSmallFilesystem(48 * 1024 * 1024);
      cleanups.push(() => small.unmount());
      const dir = path.join(small.dir, 'data');
      fs.mkdirSync(dir);
      const server = await start('toolscope-fault-full-', CALLS, dir);
      const traffic = startTraffic(server, 'full');
      await waitUntil(() => traffic.log.answered.length >= 20, 30_000);
      const filler = fillFilesystem(small.dir);
      let sawFull = false;
      await waitUntil(async () => {
        const { json } = await server.send('GET', '/api/v1/health');
        sawFull ||= json.status === 'degraded' && json.store.disk_free_bytes < 1024 * 1024;
        return sawFull;
      }, 30_000 * crowding()).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      fs.rmSync(filler);
      await waitForHealthyStore(server, 30_000 * crowding());
      const log = await traffic.stop();
      await waitForHealthyStore(server, 30_000 * crowding());
      await expectNothingLost(
        server,
        'Disk full (data folder on a filesystem of its own, filled)',
        log,
        `${log.refused.length} requests refused (503) while full`,
      );
      expect(sawFull).toBe(true);
      expect(log.longestHealthGapMs).toBeLessThan(2_000 * crowding());
    },
    180_000,
  );

  it.skipIf(!immutable)(
    'the data folder made read-only mid-run (chattr +i on every file but the -shm, open ones included)',
    async () => {
      const server = await start('toolscope-fault-readonly-', CALLS);
      const traffic = startTraffic(server, 'readonly');
      await waitUntil(() => traffic.log.answered.length >= 20, 30_000);
      let degraded = false;
      setReadOnly(server.dir, true);
      try {
        await waitUntil(async () => {
          const { json } = await server.send('GET', '/api/v1/health');
          degraded = json.status === 'degraded';
          return degraded;
        }, 30_000 * crowding()).catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      } finally {
        // Writable again before anything else, even when the test fails: the folder must be removable.
        setReadOnly(server.dir, false);
      }
      await waitForHealthyStore(server, 30_000 * crowding());
      const log = await traffic.stop();
      await waitForHealthyStore(server, 30_000 * crowding());
      await expectNothingLost(
        server,
        'Data folder made read-only mid-run',
        log,
        `${log.refused.length} requests refused (503) while read-only`,
      );
      expect(degraded).toBe(true);
      expect(log.longestHealthGapMs).toBeLessThan(2_000 * crowding());
    },
    180_000,
  );

  it('SIGKILL during approval decisions, three times', async () => {
    const config = { policies: { write_file: 'allow' }, permissions: { ask: ['write_file'] } };
    const server = await start('toolscope-fault-decide-', config);
    let current = server;
    const problems: string[] = [];
    const answered: AnsweredCall[] = [];
    for (let round = 0; round < 3; round++) {
      const pending: { traceId: string; file: string; approve: boolean }[] = [];
      for (let i = 0; i < 12; i++) {
        const file = `decide/${round}-${i}.txt`;
        const { json } = await current.send('POST', '/api/v1/tool-calls', {
          session_id: `decide-${round}-${i}`,
          tool_calls: [
            {
              id: `d${i}`,
              type: 'function',
              function: { name: 'write_file', arguments: JSON.stringify({ path: file, content: 'x' }) },
            },
          ],
          wait: false,
        });
        pending.push({ traceId: json.results[0].trace_id, file, approve: i % 2 === 0 });
      }
      // Every decision sent at once; the server dies while they are being taken.
      const decisions = pending.map(({ traceId, approve }) =>
        fetch(`${current.base}/api/v1/approvals/${traceId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ decision: approve ? 'approve' : 'deny', reason: 'fault test' }),
        }).then(
          (r) => r.status,
          () => 0,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 5 + round * 10));
      await kill(current);
      const statuses = await Promise.all(decisions);
      current = await start('toolscope-fault-decide-', config, current.dir);
      const workspace = path.join(current.dir, 'workspace');
      for (const [i, call] of pending.entries()) {
        const { status, json } = await current.send('GET', `/api/v1/traces/${call.traceId}`);
        const written = fs.existsSync(path.join(workspace, call.file));
        const where = `round ${round}, call ${i} (${call.approve ? 'approve' : 'deny'} → HTTP ${statuses[i]})`;
        if (status !== 200) {
          problems.push(`${where}: the trace is gone (${status})`);
          continue;
        }
        // A decision answered 200 was taken: it must have survived.
        if (statuses[i] === 200 && json.status === 'awaiting_approval')
          problems.push(`${where}: decided, then pending again`);
        if (json.status === 'awaiting_approval' && written) problems.push(`${where}: pending, yet the file is written`);
        if (json.status === 'denied' && written) problems.push(`${where}: denied, yet the file is written`);
        if (json.status === 'succeeded' && !written) problems.push(`${where}: succeeded, yet no file`);
        if (json.status === 'running') problems.push(`${where}: left running after the restart`);
        if (json.status !== 'awaiting_approval') {
          answered.push({ traceId: call.traceId, tool: 'write_file', status: json.status, errorCode: null });
        }
      }
      const verify = await current.send('GET', '/api/v1/audit/verify');
      if (!verify.json.ok)
        problems.push(`round ${round}: the audit chain does not verify: ${JSON.stringify(verify.json)}`);
      // What is still pending can still be decided, and runs.
      const { json: queue } = await current.send('GET', '/api/v1/approvals');
      for (const approval of queue.approvals as Json[]) {
        const { status } = await current.send('POST', `/api/v1/approvals/${approval.trace_id}`, { decision: 'deny' });
        if (status !== 200)
          problems.push(`round ${round}: a call pending after the restart could not be decided (${status})`);
      }
    }
    const log: TrafficLog = {
      answered,
      refused: [],
      unexpected: [],
      failedReads: [],
      reads: 0,
      longestHealthGapMs: 0,
      degradedSeen: 0,
    };
    record(
      'SIGKILL during approval decisions (3 rounds of 12)',
      log,
      problems,
      `${answered.length} of 36 decisions taken before the kill kept; the rest still pending, then decided`,
    );
    expect(problems).toEqual([]);
  }, 240_000);

  it('SIGKILL during a retention sweep', async () => {
    const server = await start('toolscope-fault-prune-', { policies: { calculator: 'allow' } });
    const calls = Array.from({ length: 100 }, (_, i) => ({
      id: `p${i}`,
      type: 'function',
      function: { name: 'calculator', arguments: JSON.stringify({ expression: `${i} + 1` }) },
    }));
    for (let batch = 0; batch < 40; batch++) {
      const body = { session_id: `prune-${batch}`, tool_calls: calls.slice(0, 100) };
      const { status } = await server.send('POST', '/api/v1/tool-calls', body);
      expect(status).toBe(200);
    }
    await stopGently(server);
    // Keep the newest 100: the sweep, 10 s after start, deletes the rest 500 at a time.
    const pruning = await start(
      'toolscope-fault-prune-',
      { retention: { maxCalls: 100, maxAgeDays: null } },
      server.dir,
    );
    const totalOf = async (s: BuiltServer) => (await s.send('GET', '/api/v1/traces?limit=1')).json.total as number;
    await waitUntil(async () => (await totalOf(pruning)) < 4_000, 60_000 * crowding());
    await kill(pruning);
    const after = await start(
      'toolscope-fault-prune-',
      { retention: { maxCalls: null, maxAgeDays: null } },
      server.dir,
    );
    const total = await totalOf(after);
    const db = new Database(path.join(after.dir, 'toolscope.db'), { readonly: true });
    let rowsStored: number;
    try {
      rowsStored = db.prepare('SELECT COUNT(*) FROM tool_calls').pluck().get() as number;
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
    const problems: string[] = [];
    if (total !== rowsStored) problems.push(`the list counts ${total} calls, the table holds ${rowsStored}`);
    if (rowsStored < 100) problems.push(`the sweep deleted past its bound: ${rowsStored} left`);
    const { status } = await after.send('GET', '/api/v1/sessions?limit=50');
    if (status !== 200) problems.push(`the sessions list answers ${status}`);
    rows.push({
      fault: 'SIGKILL during a retention sweep',
      survived: problems.length === 0,
      answered: 4_000,
      lost: 0,
      refused: 0,
      reads: 2,
      failedReads: status === 200 ? 0 : 1,
      note: `${4_000 - rowsStored} of 3,900 deleted before the kill; counts agree after restart`,
    });
    expect(problems).toEqual([]);
  }, 240_000);
});
