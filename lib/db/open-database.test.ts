import fs from 'node:fs';
import path from 'node:path';
import { getTableColumns } from 'drizzle-orm';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, SERVER_BUSY_TIMEOUT_MS, WAL_AUTOCHECKPOINT_PAGES } from './open-database';
import { runInStep } from './run-in-step';
import { toolCalls } from './schema';
import { createTempDataDir } from './test-database';

const temp = createTempDataDir('toolscope-open-');
afterAll(() => temp.remove());

describe('openDatabase', () => {
  it('creates the folder, sets the pragmas and applies the migrations from <cwd>/drizzle', () => {
    const file = path.join(temp.dir, 'nested', 'deeper', 'toolscope.db');
    const db = openDatabase(file);
    expect(fs.existsSync(file)).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(migrationCount());
    db.close();
  });

  it('waits long for a lock while it opens, then as little as asked (the server: SERVER_BUSY_TIMEOUT_MS)', () => {
    const db = openDatabase(path.join(temp.dir, 'server.db'), { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
    expect(db.pragma('busy_timeout', { simple: true })).toBe(SERVER_BUSY_TIMEOUT_MS);
    expect(SERVER_BUSY_TIMEOUT_MS).toBeLessThan(100);
    db.close();
  });

  it('opens an existing database again without re-applying anything', () => {
    const file = path.join(temp.dir, 'twice.db');
    openDatabase(file).close();
    const db = openDatabase(file);
    expect(db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(migrationCount());
    db.close();
  });

  it('supports an in-memory database', () => {
    const db = openDatabase(':memory:');
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'tool_calls'").pluck().get()).toBe(1);
    db.close();
  });

  it('fails, and closes the handle, when the migrations folder is missing', () => {
    expect(() => openDatabase(':memory:', { migrationsFolder: path.join(temp.dir, 'nowhere') })).toThrow();
  });

  it('lets several processes open a fresh database at once', async () => {
    // Drizzle reads the applied migrations before it takes the write lock, so processes
    // migrating the same fresh file can collide; in step over 25 files, some do.
    const files = Array.from({ length: 25 }, (_, index) => path.join(temp.dir, 'race', `${index}.db`));
    await runInStep(
      4,
      path.join(__dirname, 'open-database.ts'),
      `(m) => { for (const file of ${JSON.stringify(files)}) m.openDatabase(file).close(); }`,
    );
    for (const file of files) {
      const db = openDatabase(file);
      expect(db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(migrationCount());
      db.close();
    }
  }, 60_000);
});

describe('the committed migrations', () => {
  // Catches a schema.ts change committed without `npm run db:generate`.
  it('create exactly the columns and indexes schema.ts declares', () => {
    const db = openDatabase(':memory:');
    // table_xinfo: generated columns too (hidden 2 or 3). A generated column's NOT NULL is its
    // stored column's, so schema.ts declares it for the row type only.
    const columns = (
      db.pragma('table_xinfo(tool_calls)') as { name: string; notnull: number; pk: number; hidden: number }[]
    ).map(
      (column) =>
        `${column.name}${column.notnull ? ' not null' : ''}${column.pk ? ' pk' : ''}${column.hidden >= 2 ? ' generated' : ''}`,
    );
    const declared = Object.values(getTableColumns(toolCalls)).map((column) =>
      column.generated
        ? `${column.name} generated`
        : `${column.name}${column.notNull ? ' not null' : ''}${column.primary ? ' pk' : ''}`,
    );
    expect(columns.sort()).toEqual(declared.sort());

    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tool_calls' AND sql IS NOT NULL")
      .pluck()
      .all();
    expect(indexes.sort()).toEqual(
      getTableConfig(toolCalls)
        .indexes.map((index) => index.config.name)
        .sort(),
    );
    db.close();
  });
});

function migrationCount(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'drizzle', 'meta', '_journal.json'), 'utf8'));
  return (journal.entries as unknown[]).length;
}

describe('migration 0001 (tool counts)', () => {
  it('backfills the counts of calls recorded before it', () => {
    // A database at migration 0000 only, as an earlier Toolscope left it.
    const early = path.join(temp.dir, 'migrations-0000');
    fs.mkdirSync(path.join(early, 'meta'), { recursive: true });
    const journal = JSON.parse(fs.readFileSync('drizzle/meta/_journal.json', 'utf8'));
    const first = journal.entries[0];
    fs.writeFileSync(path.join(early, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: [first] }));
    fs.copyFileSync(`drizzle/${first.tag}.sql`, path.join(early, `${first.tag}.sql`));
    const file = path.join(temp.dir, 'backfill.db');
    const old = openDatabase(file, { migrationsFolder: early });
    const insert = old.prepare(`INSERT INTO tool_calls (id, tool_call_id, actor, tool, status, sealed_arguments,
      created_at, stages, attempts, metadata) VALUES (?, 'c', 'api', ?, ?, x'00', ?, '[]', '[]', '{}')`);
    insert.run('1', 'calc', 'succeeded', 10);
    insert.run('2', 'calc', 'failed', 20);
    insert.run('3', 'shell', 'failed', 30);
    old.close();

    const db = openDatabase(file);
    expect(db.prepare('SELECT tool, calls, failures, last_called_at FROM tool_counts ORDER BY tool').all()).toEqual([
      { tool: 'calc', calls: 2, failures: 1, last_called_at: 20 },
      { tool: 'shell', calls: 1, failures: 1, last_called_at: 30 },
    ]);
    db.close();
  });
});
