import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as runMigrations } from 'drizzle-orm/better-sqlite3/migrator';
import { retryOnContention } from './contention';

export interface MigrateOptions {
  /** Folder of drizzle-kit migrations; defaults to `<cwd>/drizzle` (the app runs from the repo root). */
  migrationsFolder?: string;
}

/**
 * Applies the pending migrations in `drizzle/` to `sqlite`.
 *
 * Processes opening a fresh database at once can collide: drizzle reads the applied list before
 * it takes the write lock, so the loser fails on "table already exists", or SQLite refuses its
 * lock upgrade at once with SQLITE_BUSY (no busy wait can help a read turning into a write).
 * Retrying after a short random pause re-reads the list and finds the work done.
 */
export function migrate(sqlite: Database, options: MigrateOptions = {}): void {
  const migrationsFolder = options.migrationsFolder ?? path.join(process.cwd(), 'drizzle');
  const db = drizzle({ client: sqlite });
  retryOnContention(() => runMigrations(db, { migrationsFolder }));
}
