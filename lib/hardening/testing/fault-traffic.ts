import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BuiltServer } from '../../server/testing/built-server';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers whose shape the tests assert on
type Json = any;

/** A call the server answered with a result: it must be stored with that status once the fault clears. */
export interface AnsweredCall {
  traceId: string;
  tool: string;
  status: string;
  errorCode: string | null;
  /** write_file's path in the workspace. */
  file?: string;
}

/** What a stream of calls and reads saw while a fault came and went. */
export interface TrafficLog {
  answered: AnsweredCall[];
  /** Requests refused as a whole: `503 STORE_UNAVAILABLE` with its `Retry-After`, before anything ran. */
  refused: { status: number; code: string; retryAfter: string | null; files: string[] }[];
  /** Anything else a call request got: a 500, another status, a dropped connection. */
  unexpected: string[];
  /** Reads answered with a 5xx, or not at all. */
  failedReads: string[];
  /** Reads answered 2xx. */
  reads: number;
  /** The longest time between two answered health checks, ms. */
  longestHealthGapMs: number;
  /** Health answers seen with `status: "degraded"`. */
  degradedSeen: number;
}

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

/**
 * Sends calls (calculator and write_file, each request its own session) from `clients` loops and
 * reads the traces list, a trace, the sessions and the health from another, until `stop()`:
 * every answer is sorted into the log. A request that takes long is fine; a 5xx is not.
 */
export function startTraffic(server: BuiltServer, label: string, clients = 3) {
  const log: TrafficLog = {
    answered: [],
    refused: [],
    unexpected: [],
    failedReads: [],
    reads: 0,
    longestHealthGapMs: 0,
    degradedSeen: 0,
  };
  let stopped = false;
  let n = 0;
  const post = async (body: unknown) => {
    const response = await fetch(`${server.base}/api/v1/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), json: await response.json() };
  };
  const client = async () => {
    while (!stopped) {
      n += 1;
      const id = n;
      const file = `${label}/${id}.txt`;
      const calls =
        id % 2 === 0
          ? [toolCall(`c${id}`, 'calculator', { expression: `${id} * 7` })]
          : [toolCall(`w${id}`, 'write_file', { path: file, content: `call ${id}\n` })];
      try {
        const { status, retryAfter, json } = await post({ session_id: `${label}-${id}`, tool_calls: calls });
        if (status === 200) {
          for (const result of json.results as Json[]) {
            log.answered.push({
              traceId: result.trace_id,
              tool: result.tool,
              status: result.status,
              errorCode: result.error?.code ?? null,
              ...(result.tool === 'write_file' ? { file } : {}),
            });
          }
        } else if (status === 503) {
          log.refused.push({ status, code: json?.error?.code, retryAfter, files: id % 2 === 0 ? [] : [file] });
          // As a well-behaved client: back off for a moment.
          await new Promise((resolve) => setTimeout(resolve, 100));
        } else {
          log.unexpected.push(`${status} ${JSON.stringify(json).slice(0, 300)}`);
        }
      } catch (error) {
        log.unexpected.push(`request ${id} failed: ${String(error)}`);
      }
    }
  };
  let lastHealth = performance.now();
  const read = async (readPath: string) => {
    try {
      const response = await fetch(`${server.base}${readPath}`);
      const body = await response.text();
      if (response.status >= 500) log.failedReads.push(`${readPath} → ${response.status} ${body.slice(0, 300)}`);
      else log.reads += 1;
      return response.ok ? (JSON.parse(body) as Json) : null;
    } catch (error) {
      log.failedReads.push(`${readPath} → ${String(error)}`);
      return null;
    }
  };
  const reader = async () => {
    while (!stopped) {
      const last = log.answered.at(-1);
      await read('/api/v1/traces?limit=20');
      await read('/api/v1/sessions?limit=10');
      if (last?.traceId) await read(`/api/v1/traces/${last.traceId}`);
      const health = await read('/api/v1/health');
      if (health) {
        const now = performance.now();
        log.longestHealthGapMs = Math.max(log.longestHealthGapMs, now - lastHealth);
        lastHealth = now;
        if (health.status === 'degraded') log.degradedSeen += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const loops = [...Array.from({ length: clients }, client), reader()];
  return {
    log,
    async stop(): Promise<TrafficLog> {
      stopped = true;
      await Promise.all(loops);
      return log;
    },
  };
}

/** Waits until the server's health says the store is ok with nothing queued; throws with the last answer. */
export async function waitForHealthyStore(server: BuiltServer, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  let last: Json = null;
  while (performance.now() < until) {
    last = await server.send('GET', '/api/v1/health').then(
      (answer) => answer.json,
      () => null,
    );
    if (last?.store?.status === 'ok' && last.store.queued === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the store did not recover within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Answered calls that are not stored with the status they were answered with. */
export async function missingCalls(server: BuiltServer, answered: AnsweredCall[]): Promise<string[]> {
  const missing: string[] = [];
  for (const call of answered) {
    const { status, json } = await server.send('GET', `/api/v1/traces/${call.traceId}`);
    if (status !== 200 || json.status !== call.status)
      missing.push(`${call.traceId} (${call.tool}): answered ${call.status}, stored ${json?.status ?? status}`);
  }
  return missing;
}

/** Files of write_file calls that did not run as answered: written though refused, or missing though succeeded. */
export function filesOutOfStep(workspace: string, log: TrafficLog): string[] {
  const wrong: string[] = [];
  const exists = (file: string) => fs.existsSync(path.join(workspace, file));
  for (const refused of log.refused)
    for (const file of refused.files) if (exists(file)) wrong.push(`${file}: refused, but written`);
  for (const call of log.answered) {
    if (!call.file) continue;
    if (call.status === 'succeeded' && !exists(call.file)) wrong.push(`${call.file}: succeeded, but not on disk`);
    if (call.status === 'failed' && call.errorCode === 'STORE_UNAVAILABLE' && exists(call.file))
      wrong.push(`${call.file}: failed STORE_UNAVAILABLE, but written`);
  }
  return wrong;
}

/**
 * Another process holding the database's write lock: `BEGIN IMMEDIATE`, then nothing for
 * `holdMs`, then `COMMIT`. Resolves once it holds the lock; `done` once it let go.
 */
export async function holdWriteLock(
  dbFile: string,
  holdMs: number,
): Promise<{ child: ChildProcess; done: Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(dbFile)}, { timeout: 30000 });
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('held\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0); }, ${holdMs});
  `;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: path.resolve(__dirname, '../../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const done = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the lock holder exited ${code}`))));
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited ${code} before holding the lock`)));
  });
  return { child, done };
}

/** Whether this process may mount filesystems (root, as in CI): the disk-full fault needs a filesystem of its own. */
export function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

/** A tmpfs of `bytes` mounted on a new folder; `unmount()` lazily unmounts it and removes the folder. */
export function mountSmallFilesystem(bytes: number): { dir: string; unmount(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-small-fs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
  return {
    dir,
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      } catch {
        // not mounted
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the filesystem holding `dir` until a write fails with ENOSPC; returns the filler's path. */
export function fillFilesystem(dir: string): string {
  const filler = path.join(dir, 'filler.bin');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
  // The last partial chunk may leave a few bytes: take them too.
  const small = fs.openSync(filler, 'a');
  try {
    for (;;) fs.writeSync(small, Buffer.alloc(512, 1));
  } catch {
    // full
  } finally {
    fs.closeSync(small);
  }
  return filler;
}

/**
 * Whether files can be made immutable here (`chattr +i`: root, on ext4, xfs, btrfs or a recent
 * tmpfs). An immutable file refuses writes even through descriptors already open — what a data
 * folder turned read-only under a running server does, where a read-only remount is refused
 * while files are open for writing.
 */
export function canMakeImmutable(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = path.join(fs.mkdtempSync(path.join(dir, 'toolscope-chattr-probe-')), 'probe');
  fs.writeFileSync(probe, '');
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(path.dirname(probe), { recursive: true, force: true });
  }
}

/**
 * Makes `dir` and everything in it read-only for everyone, root and open descriptors included
 * (`chattr +i`), or writable again — all but SQLite's shared-memory file (`-shm`): the kernel
 * answers a write to a mapped page of an immutable (or read-only) file with SIGBUS, which no
 * process survives, so that one stays writable.
 */
export function setReadOnly(dir: string, readOnly: boolean): void {
  // The server keeps writing meanwhile: a file listed here (write_file's temporary file) can be
  // renamed away before chattr reaches it. Then the folder is listed again and chattr run again.
  for (let attempt = 1; ; attempt++) {
    const paths = [dir, ...fs.readdirSync(dir, { recursive: true }).map((entry) => path.join(dir, String(entry)))];
    const targets = paths.filter((file) => !file.endsWith('-shm'));
    try {
      execFileSync('chattr', [readOnly ? '+i' : '-i', ...targets], { stdio: 'ignore' });
      return;
    } catch (error) {
      if (attempt >= 5 || targets.every((file) => fs.existsSync(file))) throw error;
    }
  }
}
