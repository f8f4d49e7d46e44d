// `npm start`: builds if needed, then runs the custom server (server/main.ts, bundled by
// build.mjs): the agent path in front of Next.js. Migrations run as it starts. Honours PORT and
// HOST; defaults to 127.0.0.1:3000.
import { spawn } from 'node:child_process';
import { buildIfNeeded } from './build.mjs';
import { SERVER_BUNDLE } from './build-state.mjs';

await buildIfNeeded();

const host = process.env.HOST || '127.0.0.1';
const port = process.env.PORT || '3000';
// --no-allocation-site-pretenuring: V8 otherwise decides, under load, that some of a call's
// objects are long-lived and allocates them straight in the old generation; every young object
// they point to (the rest of the call) then survives its scavenges and is promoted as well, until
// the next full GC, which the Next.js part of the heap makes rare. Measured on the agent path:
// ~2.9 KB promoted per call and ~10% of the main thread in scavenges, against ~0.4 KB and ~7%
// without it (docs/performance.md).
const child = spawn(process.execPath, ['--enable-source-maps', '--no-allocation-site-pretenuring', SERVER_BUNDLE], {
  stdio: 'inherit',
  env: {
    ...process.env,
    // PORT is passed on so the app knows its own address (its HTTP tool refuses it).
    PORT: port,
    HOST: host,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    // The custom server stops itself on SIGTERM/SIGINT (lib/server/shutdown.ts); Next must not
    // install handlers of its own, which would wait for every open event stream.
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
