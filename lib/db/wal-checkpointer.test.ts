import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDataDir, openTestDatabase } from './test-database';
import { startWalCheckpointer } from './wal-checkpointer';

const temps: { remove(): void }[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.remove();
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('startWalCheckpointer', () => {
  it('copies committed pages into the database file from its own thread, and stops', async () => {
    const temp = createTempDataDir();
    temps.push(temp);
    const db = openTestDatabase(temp.dir);
    // Only the thread may checkpoint here.
    db.pragma('wal_autocheckpoint = 0');
    const file = path.join(temp.dir, 'toolscope.db');
    const before = fs.statSync(file).size;
    db.exec('CREATE TABLE filler (text TEXT)');
    const insert = db.prepare('INSERT INTO filler VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 2_000; i++) insert.run('x'.repeat(200));
    })();
    expect(fs.statSync(file).size).toBe(before);

    const checkpointer = startWalCheckpointer(file, { intervalMs: 20, resolvePaths: [process.cwd()] });
    expect(await until(() => fs.statSync(file).size > before + 200 * 1_000)).toBe(true);
    await checkpointer.stop();
    db.close();
  });
});
