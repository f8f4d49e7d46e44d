import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir } from './test-helpers';

const run = promisify(execFile);
const here = path.dirname(new URL(import.meta.url).pathname);

/**
 * A program that uses the calculator as a bundled server would: its worker's source is text made
 * from the bundle's own (renamed, minified, name-kept) functions, so only a real bundle shows that
 * it still runs.
 */
const ENTRY = `
import { createCalculatorTool } from ${JSON.stringify(path.join(here, 'calculator.ts'))};
import { createCalculatorPool } from ${JSON.stringify(path.join(here, 'calculator-pool.ts'))};
const pool = createCalculatorPool({ size: 1 });
const tool = createCalculatorTool({ pool });
const ctx = { signal: new AbortController().signal };
const answers = [];
for (const expression of ['2 + 2', '5 cm to inch', 'factorial(170000)', 'x', process.argv[2]]) {
  answers.push(await Promise.resolve().then(() => tool.execute({ expression }, ctx)).then((output) => output.result, (error) => error.code));
}
await pool.close();
console.log(JSON.stringify(answers));
`;

describe('the calculator in an esbuild bundle', () => {
  let temp: Awaited<ReturnType<typeof createTempDir>>;
  beforeAll(async () => {
    temp = await createTempDir('toolscope-bundle-');
    await writeFile(path.join(temp.dir, 'entry.ts'), ENTRY);
  });
  afterAll(() => temp.remove());

  it.each([
    ['plain', {}],
    ['minified, names kept', { minify: true, keepNames: true }],
  ])(
    'evaluates in its worker when %s',
    async (name, options) => {
      const outfile = path.join(temp.dir, `${name.replace(/\W+/g, '-')}.mjs`);
      // mathjs stays out of the bundle: only the worker loads it, from the working directory.
      await build({
        entryPoints: [path.join(temp.dir, 'entry.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        external: ['mathjs'],
        outfile,
        logLevel: 'silent',
        ...options,
      });
      const slow = `${'gcd(1:10000)+'.repeat(76)}0`;
      const { stdout } = await run(process.execPath, [outfile, slow], { cwd: process.cwd(), timeout: 30_000 });
      expect(JSON.parse(stdout)).toEqual([
        4,
        '1.96850393700787 inch',
        'NON_FINITE_RESULT',
        'INVALID_EXPRESSION',
        'EVALUATION_LIMIT',
      ]);
    },
    60_000,
  );
});
