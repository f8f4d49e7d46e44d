import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempDataDir, openTestDatabase } from './test-database';
import { encodeTraceId } from './trace-id';

const SCRIPT = path.join(import.meta.dirname, 'testing', 'record-until-killed.ts');
const temp = createTempDataDir('toolscope-crash-');
afterAll(() => temp.remove());

/**
 * Runs the recording process until it has answered at least `answers` calls, then SIGKILLs it
 * mid-stream and returns every complete `<trace id> <status>` line it printed before it died.
 */
function recordThenKill(dir: string, answers: number): Promise<Map<string, string>> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, dir, '50'], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const answered = new Map<string, string>();
  let rest = '';
  let killed = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? ''; // a line cut by the kill was never fully answered
    for (const line of lines) {
      const [id, status] = line.split(' ');
      if (id && status) answered.set(id, status);
    }
    if (!killed && answered.size >= answers && child.pid) {
      killed = true;
      process.kill(child.pid, 'SIGKILL');
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the recorder exited by itself (code ${code})`));
      else resolve(answered);
    });
  });
}

describe('a SIGKILL', () => {
  it('loses no answered call: each is stored with the status it was answered with, across restarts', async () => {
    const dir = temp.dir;
    const answered = new Map<string, string>();
    for (let round = 0; round < 2; round++) {
      // The second round starts on the database the first one was killed over: a restart.
      for (const [id, status] of await recordThenKill(dir, 1500 * (round + 1))) answered.set(id, status);
    }
    const db = openTestDatabase(dir);
    try {
      const statusOf = db.prepare('SELECT status FROM tool_calls WHERE id = ?').pluck();
      const lost = [...answered].filter(([id, status]) => statusOf.get(encodeTraceId(id)) !== status);
      expect(
        lost.map(([id, status]) => `${id} answered ${status}, stored ${statusOf.get(encodeTraceId(id)) ?? 'nothing'}`),
      ).toEqual([]);
      expect(new Set(answered.values())).toEqual(new Set(['succeeded', 'failed', 'denied']));
      // Calls were in flight when it died: stored, not answered (left running, later interrupted).
      const stored = db.prepare('SELECT count(*) FROM tool_calls').pluck().get() as number;
      expect(stored).toBeGreaterThanOrEqual(answered.size);
    } finally {
      db.close();
    }
  }, 60_000);
});
