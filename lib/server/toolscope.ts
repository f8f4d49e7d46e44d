import 'server-only';
import { createToolscope, type Toolscope } from './create-toolscope';

const globalForToolscope = globalThis as unknown as { __toolscope?: Toolscope };

/**
 * The one Toolscope instance of this server process: config, database, store, executor.
 * Kept on globalThis so that every route bundle and dev-mode reload share one SQLite connection.
 */
export function getToolscope(): Toolscope {
  globalForToolscope.__toolscope ??= createToolscope();
  return globalForToolscope.__toolscope;
}
