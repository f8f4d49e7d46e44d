import fs from 'node:fs';
import path from 'node:path';
import { getTableColumns } from 'drizzle-orm';
import type { TraceRecord } from '../../executor/types';
import { CODED_COLUMNS } from '../coded-columns';
import { LATENCY_BIN_COLUMNS, latencyBinSql } from '../latency-bins';
import { openDatabase, type SqliteDatabase } from '../open-database';
import { toolCalls } from '../schema';
import { SERIES_TABLES } from '../tool-series-triggers';
import { encodeTraceRecord } from '../trace-row';
import type { Vault } from '../vault';

/** One series row as `[tool, bucket, calls, failures, ...bins]`, sorted: comparable with toEqual. */
type SeriesRows = (string | number)[][];

const valueColumns = ['calls', 'failures', ...LATENCY_BIN_COLUMNS];

/** The rows of series `table` that hold anything (deleting calls leaves rows of zeros behind). */
export function storedSeries(db: SqliteDatabase, table: string): SeriesRows {
  return db
    .prepare(
      `SELECT tool, bucket, ${valueColumns.join(', ')} FROM ${table}
        WHERE ${valueColumns.map((c) => `${c} != 0`).join(' OR ')} ORDER BY tool, bucket`,
    )
    .raw()
    .all() as SeriesRows;
}

/** What series `table` should hold: the finished calls grouped by tool and bucket. */
export function groupedSeries(db: SqliteDatabase, table: string): SeriesRows {
  const { bucketMs } = SERIES_TABLES.find((t) => t.table === table) ?? { bucketMs: 0 };
  const bins = LATENCY_BIN_COLUMNS.map((_, i) => `sum(bin = ${i})`).join(', ');
  return db
    .prepare(
      `SELECT tool, finished_at - finished_at % ${bucketMs} AS b, count(*), sum(status = 'failed'), ${bins}
        FROM (SELECT tool, finished_at, status, ${latencyBinSql('latency_ms')} AS bin
          FROM tool_calls WHERE finished_at IS NOT NULL)
        GROUP BY tool, b ORDER BY tool, b`,
    )
    .raw()
    .all() as SeriesRows;
}

/** Both series tables as stored and as grouping the calls gives them, for one `toEqual`. */
export function seriesVsCalls(db: SqliteDatabase) {
  const stored = SERIES_TABLES.map(({ table }) => storedSeries(db, table));
  const grouped = SERIES_TABLES.map(({ table }) => groupedSeries(db, table));
  return { stored, grouped };
}

/**
 * Opens a database in `dir` migrated up to, not including, the first migration whose tag ends
 * with `beforeTag`: a database as an older release left it. `migrate` brings it up to date.
 */
export function openDatabaseBefore(dir: string, beforeTag: string): SqliteDatabase {
  const folder = path.join(dir, 'older-migrations');
  fs.cpSync('drizzle', folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e) => e.tag.endsWith(beforeTag)),
  );
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return openDatabase(path.join(dir, 'toolscope.db'), { migrationsFolder: folder });
}

/** Writes `trace` by a plain upsert, bypassing the store: as a store that relied on triggers did. */
export function writeRowDirectly(db: SqliteDatabase, vault: Vault, trace: TraceRecord): void {
  const all: Record<string, unknown> = {
    ...encodeTraceRecord(trace, null),
    sealedArguments: vault.seal(trace.rawArguments, trace.id),
  };
  // The coded columns in their plain form, which reads as itself (see coded-columns.ts).
  const keyOf = new Map(Object.entries(getTableColumns(toolCalls)).map(([key, column]) => [column.name, key]));
  for (const [name, { stored }] of Object.entries(CODED_COLUMNS)) {
    all[keyOf.get(stored) as string] = all[keyOf.get(name) as string];
  }
  // An older database lacks the columns later migrations add: write the ones it has, as the store of its day did.
  const present = new Set((db.pragma('table_info(tool_calls)') as { name: string }[]).map((column) => column.name));
  const columns = Object.entries(getTableColumns(toolCalls))
    .filter(([key, column]) => present.has(column.name) && key in all)
    .map(([key, column]) => [column.name, key] as const);
  const names = columns.map(([name]) => name);
  db.prepare(
    `INSERT INTO tool_calls (${names.join(', ')}) VALUES (${columns.map(([, key]) => `@${key}`).join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${names.map((name) => `${name} = excluded.${name}`).join(', ')}`,
  ).run(Object.fromEntries(columns.map(([, key]) => [key, all[key]])));
}
