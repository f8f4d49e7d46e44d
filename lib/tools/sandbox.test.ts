import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, resolveInWorkspace } from './sandbox';
import { createTempDir, expectToolError } from './test-helpers';

let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
let outside: string;

beforeAll(async () => {
  temp = await createTempDir();
  // The real path: os.tmpdir() may itself be a symlink (macOS).
  const base = await realpath(temp.dir);
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(path.join(workspace, 'docs', 'deep'), { recursive: true });
  await mkdir(outside);
  // A sibling whose name starts with the workspace's: a naive startsWith check lets it through.
  await mkdir(`${workspace}2`);
  await writeFile(path.join(workspace, 'docs', 'readme.md'), 'hello\n');
  await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
  await writeFile(`${workspace}2/secret.txt`, 'secret\n');
  await symlink('/etc/passwd', path.join(workspace, 'passwd'));
  await symlink(outside, path.join(workspace, 'escape'));
  await symlink(`${workspace}2`, path.join(workspace, 'sibling'));
  await symlink(path.join(workspace, 'docs', 'readme.md'), path.join(workspace, 'inner-link.md'));
  await symlink('docs', path.join(workspace, 'docs-link'));
  await symlink(path.join(workspace, 'nowhere'), path.join(workspace, 'dangling'));
  await symlink(path.join(workspace, 'loop-b'), path.join(workspace, 'loop-a'));
  await symlink(path.join(workspace, 'loop-a'), path.join(workspace, 'loop-b'));
  await symlink(workspace, path.join(base, 'ws-link'));
});

afterAll(() => temp.remove());

async function expectViolation(requested: string, message?: RegExp) {
  const error = await expectToolError(resolveInWorkspace(workspace, requested));
  expect(error.code).toBe('SECURITY_VIOLATION');
  expect(error.kind).toBe('parameter');
  expect(error.retryable).toBe(false);
  if (message) expect(error.message).toMatch(message);
}

describe('resolveInWorkspace', () => {
  it('resolves an existing file inside the workspace', async () => {
    const resolved = await resolveInWorkspace(workspace, 'docs/readme.md');
    expect(resolved).toEqual({
      root: workspace,
      relative: path.join('docs', 'readme.md'),
      absolute: path.join(workspace, 'docs', 'readme.md'),
      exists: true,
    });
  });

  it('normalizes harmless oddities: ./, repeated slashes, trailing slash', async () => {
    expect((await resolveInWorkspace(workspace, './docs//readme.md')).relative).toBe('docs/readme.md');
    expect((await resolveInWorkspace(workspace, 'docs/./deep/')).relative).toBe('docs/deep');
  });

  it('resolves "." and "./" to the workspace itself', async () => {
    for (const requested of ['.', './']) {
      expect(await resolveInWorkspace(workspace, requested)).toMatchObject({
        absolute: workspace,
        relative: '.',
        exists: true,
      });
    }
  });

  it('resolves a file that does not exist yet, in folders that do not exist yet', async () => {
    expect(await resolveInWorkspace(workspace, 'new/folder/file.txt')).toMatchObject({
      absolute: path.join(workspace, 'new', 'folder', 'file.txt'),
      exists: false,
    });
  });

  it.each(['/etc/passwd', '/', path.join('/tmp', 'x')])('refuses the absolute path %s', async (requested) => {
    await expectViolation(requested, /absolute/);
  });

  it.each([
    '..',
    '../x',
    '../../etc/passwd',
    'a/../../x',
    'docs/..',
    'docs/../docs/readme.md',
    'a/b/../../..',
    'a\\..\\..\\x',
  ])('refuses the ".." path %s', async (requested) => {
    await expectViolation(requested, /"\.\."/);
  });

  it('refuses a NUL byte', async () => {
    await expectViolation('docs/readme.md\0.png', /NUL/);
  });

  it.each([
    '%2e%2e/%2e%2e/etc/passwd',
    '..%2f..%2fetc%2fpasswd',
    '%252e%252e/etc',
    '\u2025/etc/passwd',
    '\uff0e\uff0e/etc/passwd',
    '~/.ssh/id_rsa',
    '...',
    '.../x',
    '..a/b',
  ])('treats the encoded or look-alike path %j literally, inside the workspace', async (requested) => {
    const resolved = await resolveInWorkspace(workspace, requested);
    expect(isInside(workspace, resolved.absolute)).toBe(true);
    expect(resolved.exists).toBe(false);
  });

  it('refuses a symlink to /etc/passwd', async () => {
    await expectViolation('passwd', /symbolic link that points outside/);
  });

  it('refuses a symlinked folder that escapes, for existing and new files and folders below it', async () => {
    await expectViolation('escape', /"escape" is a symbolic link/);
    await expectViolation('escape/secret.txt', /"escape" is a symbolic link/);
    await expectViolation('escape/new.txt');
    await expectViolation('escape/new/deeper/file.txt');
  });

  it('refuses a symlink into a sibling folder whose name shares the workspace prefix', async () => {
    await expectViolation('sibling/secret.txt');
  });

  it('follows a symlink that stays inside the workspace', async () => {
    expect(await resolveInWorkspace(workspace, 'inner-link.md')).toMatchObject({
      absolute: path.join(workspace, 'docs', 'readme.md'),
      relative: 'inner-link.md',
      exists: true,
    });
    expect(await resolveInWorkspace(workspace, 'docs-link/readme.md')).toMatchObject({
      absolute: path.join(workspace, 'docs', 'readme.md'),
      exists: true,
    });
    expect(await resolveInWorkspace(workspace, 'docs-link/new.md')).toMatchObject({
      absolute: path.join(workspace, 'docs', 'new.md'),
      exists: false,
    });
  });

  it('refuses dangling symlinks (writing through one would create its target) and loops', async () => {
    await expectViolation('dangling', /points to nothing usable/);
    await expectViolation('loop-a', /points to nothing usable/);
  });

  it('compares against the real workspace when the workspace is reached through a symlink', async () => {
    const linked = path.join(path.dirname(workspace), 'ws-link');
    expect(await resolveInWorkspace(linked, 'docs/readme.md')).toMatchObject({
      root: workspace,
      absolute: path.join(workspace, 'docs', 'readme.md'),
    });
    await expect(resolveInWorkspace(linked, 'escape/secret.txt')).rejects.toMatchObject({ code: 'SECURITY_VIOLATION' });
  });

  it('says when a path goes through a file as if it were a folder', async () => {
    const error = await expectToolError(resolveInWorkspace(workspace, 'docs/readme.md/child'));
    expect(error.code).toBe('NOT_A_DIRECTORY');
    expect(error.kind).toBe('parameter');
  });

  it('refuses an empty path', async () => {
    expect((await expectToolError(resolveInWorkspace(workspace, ''))).code).toBe('INVALID_PATH');
  });

  it('reports a missing workspace as an internal error', async () => {
    const error = await expectToolError(resolveInWorkspace(path.join(workspace, 'missing'), 'a.txt'));
    expect(error.code).toBe('WORKSPACE_UNAVAILABLE');
    expect(error.kind).toBe('internal');
  });

  it('never resolves outside the workspace, whatever the path', async () => {
    const segment = fc.constantFrom(
      '..',
      '.',
      '',
      'docs',
      'deep',
      'escape',
      'sibling',
      'passwd',
      'docs-link',
      'inner-link.md',
      'dangling',
      '%2e%2e',
      '~',
      'readme.md',
      '\0',
      '/',
      '\\..',
      'new',
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 6 }), async (absolute, parts) => {
        const requested = (absolute ? '/' : '') + parts.join('/');
        try {
          const resolved = await resolveInWorkspace(workspace, requested);
          expect(isInside(workspace, resolved.absolute)).toBe(true);
        } catch (error) {
          expect(error).toMatchObject({ name: 'ToolError' });
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('isInside', () => {
  it.each([
    ['/srv/ws', '/srv/ws', true],
    ['/srv/ws', '/srv/ws/a', true],
    ['/srv/ws', '/srv/ws/a/b', true],
    ['/srv/ws', '/srv/ws2', false],
    ['/srv/ws', '/srv/ws2/a', false],
    ['/srv/ws', '/srv', false],
    ['/srv/ws', '/etc/passwd', false],
    ['/', '/etc', true],
  ])('isInside(%s, %s) is %s', (root, candidate, expected) => {
    expect(isInside(root, candidate)).toBe(expected);
  });
});
