import { handleShutdownSignals } from './shutdown';
import { getToolscope } from './toolscope';

/**
 * Starts Toolscope before the first request: loads the config, opens the database, applies
 * migrations and marks calls a previous process left running as interrupted. A bad config file
 * or an unusable data folder stops the server with a plain message instead of serving errors.
 * SIGTERM and SIGINT stop it promptly (see `handleShutdownSignals`).
 */
export function boot(): void {
  let ts: ReturnType<typeof getToolscope>;
  try {
    ts = getToolscope();
  } catch (error) {
    console.error(`[toolscope] cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const booted = globalThis as unknown as { __toolscopeSignals?: boolean };
  if (!booted.__toolscopeSignals) {
    booted.__toolscopeSignals = true;
    handleShutdownSignals(ts);
  }
  const interrupted = ts.interruptedAtStart
    ? `; ${ts.interruptedAtStart} call(s) left running by the last run marked interrupted`
    : '';
  console.log(
    `[toolscope] data ${ts.config.dataDir}; workspace ${ts.config.workspace}; config ${ts.config.configPath ?? '(defaults)'}${interrupted}`,
  );
}
