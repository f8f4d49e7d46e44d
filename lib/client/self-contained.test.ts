import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The client is `fetch` and nothing else: its files import only each other (no Node module, no
 * package, nothing else of Toolscope), so it runs in Node, Deno, Bun or a browser, and an agent
 * can copy the folder. Tests and `testing/` may import what they like.
 */
describe('lib/client', () => {
  it('imports nothing outside its own folder', () => {
    const dir = __dirname;
    const files = fs.readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    expect(files).toContain('create-toolscope-client.ts');
    for (const file of files) {
      // Code only: the JSDoc examples show an agent's imports.
      const source = fs
        .readFileSync(path.join(dir, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line))
        .join('\n');
      const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      for (const specifier of specifiers) expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[\w-]+$/);
    }
  });
});
