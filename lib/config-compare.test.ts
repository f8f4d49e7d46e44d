import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

/** The config's `compare` section: `ignore_paths`, checked as globs. */
const dirs: string[] = [];
function withConfig(file: unknown): string {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-config-compare-'));
  dirs.push(cwd);
  fs.writeFileSync(path.join(cwd, 'toolscope.config.json'), JSON.stringify(file));
  return cwd;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function problemWith(file: unknown): string {
  try {
    loadConfig({}, withConfig(file));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(file)}`);
}

describe('compare in the config', () => {
  it('is empty by default: the default volatile paths only', () => {
    expect(loadConfig({}, withConfig({})).compare).toEqual({ ignorePaths: [] });
    expect(loadConfig({}, withConfig({ compare: {} })).compare).toEqual({ ignorePaths: [] });
  });

  it('reads ignore_paths as written', () => {
    const paths = ['headers.date', '*.timestamp', '**.request_id', 'items[*].id', 'headers["x.y"]'];
    expect(loadConfig({}, withConfig({ compare: { ignore_paths: paths } })).compare).toEqual({ ignorePaths: paths });
  });

  it('refuses a path that is no glob, a wildcard alone, a non-list and an unknown key, naming the field', () => {
    expect(problemWith({ compare: { ignore_paths: ['a..b'] } })).toMatch(
      /compare\.ignore_paths\.0: "a\.\.b" is not a path/,
    );
    expect(problemWith({ compare: { ignore_paths: ['ok', '**'] } })).toMatch(
      /compare\.ignore_paths\.1: .*wildcards only/,
    );
    expect(problemWith({ compare: { ignore_paths: [''] } })).toMatch(/compare\.ignore_paths\.0: an empty path/);
    expect(problemWith({ compare: { ignore_paths: [3] } })).toMatch(/compare\.ignore_paths\.0: a path such as/);
    expect(problemWith({ compare: { ignore_paths: 'headers.date' } })).toMatch(/compare\.ignore_paths: /);
    expect(problemWith({ compare: { ignore: ['x'] } })).toMatch(/compare: .*ignore/);
    expect(problemWith({ compare: { ignore_paths: Array(101).fill('a') } })).toMatch(/at most 100 paths/);
  });
});
