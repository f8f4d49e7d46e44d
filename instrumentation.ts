/**
 * Runs once when the server starts: loads the config, opens the database, applies migrations
 * and marks calls a previous process left running as interrupted — before the first request.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getToolscope } = await import('./lib/server/toolscope');
  let ts: ReturnType<typeof getToolscope>;
  try {
    ts = getToolscope();
  } catch (error) {
    // A bad config file or an unusable data folder: say so plainly and stop, rather than serve errors.
    console.error(`[toolscope] cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(
    `[toolscope] data folder ${ts.config.dataDir}; workspace ${ts.config.workspace}; config ${ts.config.configPath ?? '(defaults)'}` +
      (ts.interruptedAtStart ? `; ${ts.interruptedAtStart} interrupted call(s) from the last run` : ''),
  );
}
