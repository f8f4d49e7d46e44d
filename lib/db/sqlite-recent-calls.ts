import type { SideEffect } from '../executor/types';
import type { SqliteDatabase } from './open-database';
import { idTextSql } from './trace-id';

/** What a policy decides on, as recorded: the arguments are the redacted ones. */
export interface RecentCall {
  id: string;
  tool: string;
  sideEffect: SideEffect | null;
  /** Redacted, as stored; a string when the call's arguments did not parse. */
  arguments: unknown;
  actor: string;
  sessionId: string | null;
  /** The length of the stored arguments' text (0 without): large ones are validated only up to their first failing field. */
  argumentsChars: number;
}

/** The newest `limit` calls, newest first. */
export type RecentCalls = (limit: number) => RecentCall[];

export const RECENT_CALLS_SQL = `SELECT ${idTextSql('id')} AS id, tool, side_effect AS sideEffect, arguments, actor, session_id AS sessionId
  FROM tool_calls ORDER BY seq DESC LIMIT ?`;

/**
 * The newest calls' policy inputs, for the preview of draft rules: one walk of the primary key
 * backwards, reading only the columns a policy sees. `beforeRead` lets the trace store write its
 * queued calls first.
 */
export function createSqliteRecentCalls(db: SqliteDatabase, options: { beforeRead?: () => void } = {}): RecentCalls {
  const select = db.prepare(RECENT_CALLS_SQL);
  return (limit) => {
    options.beforeRead?.();
    const rows = select.all(Math.max(1, Math.floor(limit))) as (Omit<RecentCall, 'arguments'> & {
      arguments: string | null;
    })[];
    return rows.map((row) => ({
      ...row,
      arguments: row.arguments === null ? undefined : JSON.parse(row.arguments),
      argumentsChars: row.arguments?.length ?? 0,
    }));
  };
}
