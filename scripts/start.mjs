// `npm start`: builds if needed, then serves the app (migrations run as the server starts, in
// instrumentation.ts). Honours PORT and HOST; defaults to 127.0.0.1:3000.
import { spawn } from 'node:child_process';
import { buildIfNeeded } from './build.mjs';

buildIfNeeded();

const host = process.env.HOST || '127.0.0.1';
const port = process.env.PORT || '3000';
const child = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'start', '-H', host, '-p', port], {
  stdio: 'inherit',
  env: {
    ...process.env,
    // PORT is passed on so the app knows its own address (its HTTP tool refuses it).
    PORT: port,
    HOST: host,
    NEXT_TELEMETRY_DISABLED: '1',
    // Next's own handler waits for every open connection (an event stream never ends), so the
    // app stops itself on SIGTERM/SIGINT: lib/server/shutdown.ts.
    NEXT_MANUAL_SIG_HANDLE: '1',
  },
});

// The app exits by itself within a few seconds; this is the last resort if it does not.
const KILL_AFTER_MS = 10_000;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal);
    setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS).unref();
  });
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
