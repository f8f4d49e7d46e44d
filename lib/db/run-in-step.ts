import { spawn } from 'node:child_process';

/**
 * Runs `body` in `count` fresh Node processes at the same moment, for race tests: each process
 * imports `moduleFile` (TypeScript, through tsx) and says it is ready; once all are ready they
 * are told to go together, so slow process start-up cannot spread them apart.
 * `body` is the source of a function `(module) => result`; returns each process's JSON result.
 * @example await runInStep(4, '/repo/lib/db/vault.ts', '(m) => m.loadOrCreateVaultKey(dir).length')
 */
export async function runInStep(count: number, moduleFile: string, body: string): Promise<unknown[]> {
  const script = `import(${JSON.stringify(moduleFile)}).then((m) => {
    process.stdout.write('ready\\n');
    process.stdin.once('data', () => {
      process.stdout.write(JSON.stringify((${body})(m) ?? null));
      process.exit(0);
    });
  })`;
  const children = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let onReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      onReady = resolve;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith('ready\n')) onReady();
    });
    const done = new Promise<unknown>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`child exited with ${code}`));
        resolve(JSON.parse(out.slice('ready\n'.length)));
      });
    });
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map((c) => c.done));
}
