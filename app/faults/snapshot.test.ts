import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { createHttpApp } from '@/lib/http/app';
import { callApp } from '@/lib/http/testing/call-app';
import { createToolscope, type Toolscope } from '@/lib/server/create-toolscope';
import { faultRulesSnapshot } from './snapshot';

const dirs: string[] = [];
const open: Toolscope[] = [];
afterEach(async () => {
  for (const ts of open.splice(0)) {
    await ts.stop({ by: 'test' });
    ts.close();
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function start() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-faults-snapshot-'));
  dirs.push(dir);
  const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
  open.push(ts);
  return ts;
}

describe("the Faults page's first paint", () => {
  it('is what GET /api/v1/faults answers: the rules newest first and the active count', async () => {
    const ts = start();
    expect(faultRulesSnapshot(ts)).toEqual({ faults: [], active: 0 });
    ts.faults.create({ name: 'slow', tool: 'calculator', kind: 'latency', params: { ms: 50 } });
    ts.faults.create({ name: 'off', tool: 'http_*', kind: 'fail_first', params: { n: 2 }, enabled: false });
    ts.faults.create({
      name: 'gone',
      tool: 'read_file',
      kind: 'timeout',
      expires_at: Date.now() - 1_000,
    });
    const snapshot = faultRulesSnapshot(ts);
    expect(snapshot.faults.map((r) => [r.name, r.active])).toEqual([
      ['gone', false],
      ['off', false],
      ['slow', true],
    ]);
    expect(snapshot.active).toBe(1);
    expect(snapshot).toEqual(await (await callApp(createHttpApp(ts), 'GET', '/api/v1/faults')).json());
  });
});
