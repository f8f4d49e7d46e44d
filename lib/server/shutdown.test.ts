import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { openDatabase } from '../db/open-database';
import { idTextSql } from '../db/trace-id';
import { crowding } from '../hardening/testing/machine-pace';
import { createToolscope } from './create-toolscope';
import { stopToolscope } from './shutdown';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function toolscopeWithShell() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-stop-'));
  dirs.push(dir);
  fs.writeFileSync(
    path.join(dir, 'toolscope.config.json'),
    JSON.stringify({ policies: { run_shell: 'allow' }, shell: { allow: ['sh'] } }),
  );
  return createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
}

describe('stopToolscope', () => {
  it('ends event streams, cancels calls in flight as shutdown, records them and closes the store', async () => {
    const ts = toolscopeWithShell();
    let streamClosed = false;
    ts.events.subscribe({ onEvent: () => {}, onClose: () => (streamClosed = true) });
    const running = ts.executor.execute({ name: 'run_shell', arguments: { command: ['sh', '-c', 'sleep 30'] } });
    for (let i = 0; i < 100 && ts.executor.inFlightIds().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [id] = ts.executor.inFlightIds();

    const started = Date.now();
    expect(await stopToolscope(ts)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000 * crowding());
    expect(streamClosed).toBe(true);
    const result = await running;
    expect(result).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    expect(result.error?.details).toMatchObject({ cancelledBy: 'shutdown', reason: 'Toolscope is shutting down' });

    const db = openDatabase(ts.config.dbPath);
    const rows = db.prepare(`select ${idTextSql('id')} AS id, status from tool_calls`).all() as {
      id: string;
      status: string;
    }[];
    db.close();
    expect(rows).toEqual([{ id, status: 'cancelled' }]);
  });

  it('refuses calls that arrive while it stops, without running them', async () => {
    const ts = toolscopeWithShell();
    const stopping = ts.stop({ by: 'shutdown' });
    const late = await ts.executor.execute({ name: 'run_shell', arguments: { command: ['sh', '-c', 'echo ran'] } });
    await stopping;
    expect(late.success).toBe(false);
    expect(late.error?.code).toBe('TRACE_UNAVAILABLE');
    ts.close();
  });
});
