import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config';
import { createToolscope } from './create-toolscope';
import { acquireDataFolderLock, DataFolderLockedError, isDataFolderLockedError, OWNER_FILE } from './data-lock';

const SCRIPT = path.join(import.meta.dirname, 'testing', 'hold-data-lock.ts');

const dirs: string[] = [];
const children: ChildProcess[] = [];
function dataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-lock-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  // By pid, each one this file started.
  for (const child of children.splice(0)) {
    if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Holder {
  child: ChildProcess;
  /** `held <pid>` or `refused <message>`. */
  line: Promise<string>;
  exited: Promise<number | null>;
}

/** Runs testing/hold-data-lock.ts on `dir` in a process of its own. */
function holder(dir: string, mode: 'lock' | 'toolscope', startAt?: number): Holder {
  const args = ['--import', 'tsx', SCRIPT, dir, mode, ...(startAt ? [String(startAt)] : [])];
  const child = spawn(process.execPath, args, { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  const line = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before a line: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, line, exited };
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid!, signal);
  return gone;
}

describe('the data folder lock', () => {
  it('refuses a second Toolscope in another process, naming the folder, the holder and what to do', async () => {
    const dir = dataDir();
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
    try {
      const second = holder(dir, 'toolscope');
      const line = await second.line;
      expect(line).toMatch(/^refused /);
      expect(line).toContain(dir);
      expect(line).toContain(`pid ${process.pid} on host ${os.hostname()}`);
      expect(line).toContain('Stop that process');
      expect(line).toContain('TOOLSCOPE_DATA_DIR');
      expect(await second.exited).toBe(3);
      // The refused one left the holder's record alone, and the holder still works.
      expect(JSON.parse(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8')).pid).toBe(process.pid);
      const result = await ts.executor.execute({ name: 'calculator', arguments: { expression: '1+1' } });
      expect(result.success).toBe(true);
    } finally {
      ts.close();
    }
  });

  it('takes over at once, with a one-line notice, the lock of a holder that was SIGKILLed', async () => {
    const dir = dataDir();
    const first = holder(dir, 'toolscope');
    expect(await first.line).toBe(`held ${first.child.pid}`);
    await kill(first.child, 'SIGKILL');

    const log = vi.fn();
    const lock = acquireDataFolderLock(dir, { log });
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toMatch(
      new RegExp(`^\\[toolscope\\] took over the lock on .+ left by pid ${first.child.pid} on host `),
    );
    expect(log.mock.calls[0]?.[0]).not.toContain('\n');
    lock.release();

    // And a whole Toolscope restarts there.
    const again = holder(dir, 'toolscope');
    expect(await again.line).toBe(`held ${again.child.pid}`);
    await kill(again.child, 'SIGKILL');
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
    ts.close();
  });

  it('lets exactly one of several processes starting at the same moment win', async () => {
    const dir = dataDir();
    // Far enough ahead for every child to have loaded; then they all try within a millisecond.
    const startAt = Date.now() + 3_000;
    const racers = Array.from({ length: 6 }, () => holder(dir, 'lock', startAt));
    const lines = await Promise.all(racers.map((r) => r.line));
    const winners = lines.filter((line) => line.startsWith('held '));
    expect(winners).toHaveLength(1);
    const losers = lines.filter((line) => line.startsWith('refused '));
    expect(losers).toHaveLength(racers.length - 1);
    // Each loser names the winner (it waits a moment for the winner to record itself).
    for (const line of losers) expect(line).toContain(`pid ${winners[0]?.slice('held '.length)} on host`);
  }, 30_000);

  it('is released by close: another process takes it, and no takeover is reported', async () => {
    const dir = dataDir();
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
    ts.close();
    expect(fs.existsSync(path.join(dir, OWNER_FILE))).toBe(false);

    const next = holder(dir, 'lock');
    expect(await next.line).toBe(`held ${next.child.pid}`);
    // SIGTERM makes it release: the folder is left as a clean stop leaves it.
    await kill(next.child, 'SIGTERM');
    expect(fs.existsSync(path.join(dir, OWNER_FILE))).toBe(false);
    const log = vi.fn();
    acquireDataFolderLock(dir, { log }).release();
    expect(log).not.toHaveBeenCalled();
  });

  it('restarts in the same process after close, and refuses a second live instance there too', () => {
    const dir = dataDir();
    const config = loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir);
    const first = createToolscope(config);
    expect(() => createToolscope(config)).toThrow(DataFolderLockedError);
    first.close();
    first.close();

    const warn = vi.spyOn(console, 'warn');
    try {
      const second = createToolscope(config);
      expect(warn).not.toHaveBeenCalled();
      second.close();
    } finally {
      warn.mockRestore();
    }
  });

  it('recognises the refusal by name and shape, from another copy of the class too', async () => {
    const dir = dataDir();
    const held = acquireDataFolderLock(dir);
    let refusal: unknown;
    try {
      acquireDataFolderLock(dir);
    } catch (error) {
      refusal = error;
    } finally {
      held.release();
    }
    expect(isDataFolderLockedError(refusal)).toBe(true);
    vi.resetModules();
    const copy = (await import('./data-lock')) as typeof import('./data-lock');
    expect(copy.DataFolderLockedError).not.toBe(DataFolderLockedError);
    const fromCopy = new copy.DataFolderLockedError(dir, undefined);
    expect(fromCopy).not.toBeInstanceOf(DataFolderLockedError);
    expect(isDataFolderLockedError(fromCopy)).toBe(true);
    expect(isDataFolderLockedError(Object.assign(new Error('x'), { name: 'DataFolderLockedError' }))).toBe(false);
  });

  it('keeps the lock of a live holder when an attempt in the same process is refused', async () => {
    const dir = dataDir();
    const lock = acquireDataFolderLock(dir);
    // The refused attempt opens and closes the lock file: a POSIX lock dies with any close of the
    // file by its process, unless SQLite defers that close, as it must.
    expect(() => acquireDataFolderLock(dir, { ownerWaitMs: 0 })).toThrow(/is in use by another Toolscope \(pid/);
    const other = holder(dir, 'lock');
    expect(await other.line).toMatch(/^refused /);
    lock.release();
  });
});
