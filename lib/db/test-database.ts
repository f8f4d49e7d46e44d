import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type SqliteDatabase } from './open-database';

/** A fresh data folder under the OS temp dir; `remove()` deletes it. For tests and scripts. */
export function createTempDataDir(prefix = 'toolscope-db-'): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Opens a migrated SQLite file `toolscope.db` in `dir`, as the app does (run from the repo root). */
export function openTestDatabase(dir: string): SqliteDatabase {
  return openDatabase(path.join(dir, 'toolscope.db'));
}
