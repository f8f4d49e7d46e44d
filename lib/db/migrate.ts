import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as runMigrations } from 'drizzle-orm/better-sqlite3/migrator';

export interface MigrateOptions {
  /** Folder of drizzle-kit migrations; defaults to `<cwd>/drizzle` (the app runs from the repo root). */
  migrationsFolder?: string;
}

/**
 * Applies the pending migrations in `drizzle/` to `sqlite`.
 *
 * Two processes opening a fresh database at once can both see a migration as pending (drizzle
 * reads the applied list before taking the write lock); the loser's migration then fails on
 * "table already exists". One retry re-reads the list, finds everything applied, and succeeds.
 */
export function migrate(sqlite: Database, options: MigrateOptions = {}): void {
  const migrationsFolder = options.migrationsFolder ?? path.join(process.cwd(), 'drizzle');
  const db = drizzle({ client: sqlite });
  try {
    runMigrations(db, { migrationsFolder });
  } catch {
    runMigrations(db, { migrationsFolder });
  }
}
