import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { hasCurrentBuild } from '../lib/server/testing/built-server';
import { searchQueries } from './store-scale';
import { ensureSeeded, seedStore } from './store-seed';
import { measureStoreServer, servedCopy, storePaths } from './store-server';

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-store-server-'));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

/**
 * The folder's files but the WAL and its index (a reader makes those) with their size and
 * modification time: what "left untouched" means.
 */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))
      .map((name) => {
        const stat = fs.statSync(path.join(dir, name));
        return [name, `${stat.size} ${stat.mtimeMs}`];
      }),
  );
}

const statusCounts = (dir: string) => {
  const db = new Database(path.join(dir, 'toolscope.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT status, count(*) AS n FROM tool_calls GROUP BY status ORDER BY status').all();
  } finally {
    db.close();
  }
};

describe('the built server on the store at scale (bench/store-server.ts)', () => {
  it('copies the seeded folder once, reuses the copy while seed.json is the same, and copies again when it changes', () => {
    const source = path.join(temp, 'copy-source');
    seedStore({ dir: source, calls: 300 });
    fs.writeFileSync(path.join(source, 'seed.json'), '{"calls":300,"schema":"a","seedSeconds":1}\n');
    const before = snapshot(source);
    const target = path.join(temp, 'copy-target');
    expect(servedCopy(source, target)).toBe(true);
    expect(fs.readFileSync(path.join(target, 'seed.json'), 'utf8')).toBe(
      fs.readFileSync(path.join(source, 'seed.json'), 'utf8'),
    );
    expect(fs.readFileSync(path.join(target, 'vault.key'))).toEqual(fs.readFileSync(path.join(source, 'vault.key')));
    expect(statusCounts(target)).toEqual(statusCounts(source));
    expect(servedCopy(source, target)).toBe(false);
    fs.writeFileSync(path.join(source, 'seed.json'), '{"calls":300,"schema":"b","seedSeconds":1}\n');
    expect(servedCopy(source, target)).toBe(true);
    expect(snapshot(source)).toEqual({ ...before, 'seed.json': snapshot(source)['seed.json'] });
  });

  it("requests the pages measureStoreAtScale times and every search, as the app's URLs", () => {
    const paths = storePaths(2_000);
    for (const prefix of ['/', '/?tool=', '/?status=failed', '/?session=run-', '/traces/', '/sessions/', '/tools']) {
      expect(paths.some((p) => p.startsWith(prefix))).toBe(true);
    }
    expect(paths.filter((p) => p.startsWith('/?q=')).map((p) => decodeURIComponent(p.slice(4)))).toEqual(
      searchQueries(2_000),
    );
  });

  it('reads the RSS of the built app on a copy, at rest and after the load, leaving the seeded folder as it was', async () => {
    if (!(await hasCurrentBuild('store-server'))) return;
    process.env.TOOLSCOPE_BENCH_DATA_DIR = path.join(temp, 'seeded');
    try {
      const seeded = ensureSeeded({ calls: 2_000 });
      const before = snapshot(seeded.dir);
      const runningBefore = statusCounts(seeded.dir);
      const servedDir = path.join(temp, 'served');
      const figures = await measureStoreServer({ calls: 2_000, progress: () => {}, servedDir, seconds: 2, clients: 2 });
      expect(figures.firstError).toBeUndefined();
      expect(figures.errors).toBe(0);
      expect(figures.requests).toBeGreaterThanOrEqual(figures.paths.length);
      expect(figures.rssAtRestBytes).toBeGreaterThan(20 * 2 ** 20);
      expect(figures.rssAfterLoadBytes).toBeGreaterThan(20 * 2 ** 20);
      // The seeded folder is as it was (its 20 running calls still running); the copy's were interrupted at start.
      expect(snapshot(seeded.dir)).toEqual(before);
      expect(statusCounts(seeded.dir)).toEqual(runningBefore);
      expect(statusCounts(servedDir)).not.toContainEqual({ status: 'running', n: 20 });
      // Retention is off on the copy (its calls are weeks old): every call is still there.
      const total = (counts: unknown[]) => (counts as { n: number }[]).reduce((sum, row) => sum + row.n, 0);
      expect(total(statusCounts(servedDir))).toBe(2_000);
    } finally {
      delete process.env.TOOLSCOPE_BENCH_DATA_DIR;
    }
  }, 180_000);
});
