import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../create-toolscope';

type ToolscopeOptions = Parameters<typeof createToolscope>[1];

/**
 * Real Toolscopes on throwaway data folders for a test file: each test's Toolscopes are stopped
 * and closed, and their folders removed, after it. Call once at the top of the file.
 * @example const toolscopes = testToolscopes('toolscope-replay-');
 * const ts = toolscopes.start(toolscopes.dataDir({ approvals: { user: 'alice' } }));
 */
export function testToolscopes(prefix: string) {
  const dirs: string[] = [];
  const open: Toolscope[] = [];
  afterEach(async () => {
    for (const ts of open.splice(0)) {
      await ts.stop({ by: 'test' });
      ts.close();
    }
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (dir: string, options: ToolscopeOptions = {}) => {
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir), options);
    open.push(ts);
    return ts;
  };
  return {
    /** A new data folder, with `config` as its config file when given. */
    dataDir(config?: object): string {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      if (config) fs.writeFileSync(path.join(dir, 'toolscope.config.json'), JSON.stringify(config));
      return dir;
    },
    start,
    /** Closes `ts`'s store without stopping it, as a crash would: nothing is cancelled or finished. */
    crash(ts: Toolscope) {
      open.splice(open.indexOf(ts), 1);
      ts.close();
    },
    /** Stops and closes `ts` as a shutdown would, and starts again on the same folder. */
    async restart(ts: Toolscope, dir: string, options: ToolscopeOptions = {}) {
      open.splice(open.indexOf(ts), 1);
      await ts.stop({ by: 'shutdown' });
      ts.close();
      return start(dir, options);
    },
  };
}
