import fs from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Whether the database at `dbPath` holds any named key, read without creating or changing
 * anything: a server that must not start (exposed without keys) leaves its data folder as it was.
 */
export function hasStoredKeys(dbPath: string): boolean {
  if (!fs.existsSync(dbPath)) return false;
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    return db.prepare("SELECT 1 FROM access_keys WHERE kind = 'key' LIMIT 1").get() !== undefined;
  } catch {
    // No such table yet (a database from before keys), or one that cannot be read: no keys.
    return false;
  } finally {
    db?.close();
  }
}
