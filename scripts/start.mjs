// `npm start`: builds if needed, then serves the app (migrations run as the server starts, in
// instrumentation.ts). Honours PORT and HOST; defaults to 127.0.0.1:3000.
import { spawn } from 'node:child_process';
import { buildIfNeeded } from './build.mjs';

buildIfNeeded();

const host = process.env.HOST || '127.0.0.1';
const port = process.env.PORT || '3000';
const child = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'start', '-H', host, '-p', port], {
  stdio: 'inherit',
  // PORT is passed on so the app knows its own address (its HTTP tool refuses it).
  env: { ...process.env, PORT: port, HOST: host, NEXT_TELEMETRY_DISABLED: '1' },
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
