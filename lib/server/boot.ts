import { describeShellSandbox } from '../tools/process-sandbox';
import type { Toolscope } from './create-toolscope';
import { handleShutdownSignals, type ShutdownOptions } from './shutdown';
import { getToolscope } from './toolscope';

// On globalThis: the custom server (server/main.ts) and Next's instrumentation are separate
// bundles in one process, and whichever comes first does the work.
const flags = globalThis as unknown as { __toolscopeBooted?: boolean; __toolscopeSignals?: boolean };

/**
 * Starts Toolscope before the first request: loads the config, opens the database, applies
 * migrations and marks calls a previous process left running as interrupted. A bad config file
 * or an unusable data folder stops the server with a plain message instead of serving errors.
 */
export function startToolscope(): Toolscope {
  let ts: Toolscope;
  try {
    ts = getToolscope();
  } catch (error) {
    console.error(`[toolscope] cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  if (!flags.__toolscopeBooted) {
    flags.__toolscopeBooted = true;
    const interrupted = ts.interruptedAtStart
      ? `; ${ts.interruptedAtStart} call(s) left running by the last run marked interrupted`
      : '';
    console.log(
      `[toolscope] data ${ts.config.dataDir}; workspace ${ts.config.workspace}; config ${ts.config.configPath ?? '(defaults)'}${interrupted}`,
    );
    for (const note of ts.config.notes) console.warn(`[toolscope] ${note}`);
    const mode = ts.access.localMode()
      ? 'local mode: no key is set up, so anyone on this machine is admin (npm run keys -- create … to end it)'
      : 'keys required: every request needs a key or a login';
    console.log(`[toolscope] access: ${mode}`);
    const sandbox = `[toolscope] ${describeShellSandbox(ts.shellSandbox)}`;
    if (ts.shellSandbox.kind === 'none' || ts.shellSandbox.refused) console.warn(sandbox);
    else console.log(sandbox);
    const vault = ts.vaultHealth();
    if (vault.message) console.warn(`[toolscope] vault ${vault.status}: ${vault.message}`);
  }
  return ts;
}

/**
 * Makes SIGTERM and SIGINT stop Toolscope promptly (see `handleShutdownSignals`), once per
 * process: the custom server claims this first, with its HTTP server to close.
 */
export function ownShutdown(ts: Toolscope, options: ShutdownOptions = {}): void {
  if (flags.__toolscopeSignals) return;
  flags.__toolscopeSignals = true;
  handleShutdownSignals(ts, options);
}

/** Next's instrumentation hook: starts Toolscope, unless the custom server already did. */
export function boot(): void {
  ownShutdown(startToolscope());
}
