import 'server-only';
import { hasStoredKeys } from '../access/stored-keys';
import { accessProblem, ConfigError, loadConfig } from '../config';
import { createToolscope, type Toolscope } from './create-toolscope';

const globalForToolscope = globalThis as unknown as { __toolscope?: Toolscope };

/**
 * The one Toolscope instance of this server process: config, database, store, executor.
 * Kept on globalThis so that every route bundle and dev-mode reload share one SQLite connection.
 * Settings the server must not run with (exposed without a token) stop it before anything opens.
 */
export function getToolscope(): Toolscope {
  globalForToolscope.__toolscope ??= createServerToolscope();
  return globalForToolscope.__toolscope;
}

function createServerToolscope(): Toolscope {
  const config = loadConfig();
  // Read before anything opens: a server that must not start leaves its data folder as it was.
  const problem = accessProblem(config, hasStoredKeys(config.dbPath));
  if (problem) throw new ConfigError(problem);
  return createToolscope(config);
}
