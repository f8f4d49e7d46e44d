import { chmod, lstat, mkdir, readdir, readFile, realpath, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTempDir, createTestContext, expectToolError } from './test-helpers';
import { createWriteFileTool, type WriteFileInput } from './write-file';

let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
let outside: string;
let tool: ReturnType<typeof createWriteFileTool>;
const ctx = createTestContext();
const write = async (input: WriteFileInput, context = ctx) => tool.execute(input, context);

/** Every file under `dir`, relative, to prove nothing (temp files included) was left behind. */
async function listAll(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

beforeAll(async () => {
  temp = await createTempDir();
  const base = await realpath(temp.dir);
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(path.join(workspace, 'docs'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'target.txt'), 'original\n');
  await writeFile(path.join(workspace, 'docs', 'real.txt'), 'before\n');
  await symlink(path.join(outside, 'target.txt'), path.join(workspace, 'outside-file'));
  await symlink(outside, path.join(workspace, 'escape'));
  await symlink(path.join(outside, 'created-through-dangling.txt'), path.join(workspace, 'dangling'));
  await symlink(path.join(workspace, 'docs', 'real.txt'), path.join(workspace, 'inner-link.txt'));
  tool = createWriteFileTool({ workspace, maxBytes: 64 });
});

afterAll(() => temp.remove());

describe('write_file', () => {
  it('declares a side-effectful tool that is not retried', () => {
    expect(tool.name).toBe('write_file');
    expect(tool.sideEffect).toBe('write');
    expect(tool.retry.maxAttempts).toBe(1);
    expect(tool.description).toMatch(/64 bytes/);
    const schema = z.toJSONSchema(tool.inputSchema) as { properties: Record<string, { description?: string }> };
    expect(schema.properties.path?.description).toMatch(/relative/);
    expect(schema.properties.content?.description).toMatch(/UTF-8/);
  });

  it('creates a file, with the folders it needs', async () => {
    expect(await write({ path: 'notes/2024/todo.md', content: '- write tests\n' })).toEqual({
      path: 'notes/2024/todo.md',
      bytes: 14,
      created: true,
    });
    expect(await readFile(path.join(workspace, 'notes', '2024', 'todo.md'), 'utf8')).toBe('- write tests\n');
  });

  it('replaces an existing file, keeping its permissions', async () => {
    const file = path.join(workspace, 'script.sh');
    await writeFile(file, 'old');
    await chmod(file, 0o750);
    expect(await write({ path: 'script.sh', content: 'echo new' })).toMatchObject({ created: false, bytes: 8 });
    expect(await readFile(file, 'utf8')).toBe('echo new');
    expect((await stat(file)).mode & 0o777).toBe(0o750);
  });

  it('counts bytes in UTF-8 and writes an empty file', async () => {
    expect((await write({ path: 'utf8.txt', content: 'héllo 🎉' })).bytes).toBe(11);
    expect(await readFile(path.join(workspace, 'utf8.txt'), 'utf8')).toBe('héllo 🎉');
    expect(await write({ path: 'empty.txt', content: '' })).toMatchObject({ bytes: 0, created: true });
  });

  it('leaves no temporary files behind', async () => {
    await write({ path: 'docs/a.txt', content: 'a' });
    await write({ path: 'docs/a.txt', content: 'b' });
    expect((await listAll(workspace)).filter((name) => name.includes('toolscope-tmp'))).toEqual([]);
  });

  it('refuses content over the size limit and writes nothing', async () => {
    const error = await expectToolError(write({ path: 'big.txt', content: 'x'.repeat(65) }));
    expect(error).toMatchObject({ code: 'SIZE_EXCEEDED', kind: 'parameter', details: { bytes: 65, maxBytes: 64 } });
    await expect(stat(path.join(workspace, 'big.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await write({ path: 'limit.txt', content: 'x'.repeat(64) })).bytes).toBe(64);
  });

  it.each(['docs', '.', 'docs/', 'new-folder/'])('refuses to write to the folder path %j', async (requested) => {
    const error = await expectToolError(write({ path: requested, content: 'x' }));
    expect(error).toMatchObject({ code: 'IS_A_DIRECTORY', kind: 'parameter' });
  });

  it('refuses a path through a file', async () => {
    const error = await expectToolError(write({ path: 'docs/real.txt/child.txt', content: 'x' }));
    expect(error.code).toBe('NOT_A_DIRECTORY');
  });

  describe('sandbox', () => {
    it.each([
      ['/tmp/toolscope-escape.txt', /absolute/],
      ['../outside/target.txt', /"\.\."/],
      ['docs/../../outside/target.txt', /"\.\."/],
      ['a/../../x.txt', /"\.\."/],
      ['docs/evil\0.txt', /NUL/],
      ['outside-file', /outside the workspace/],
      ['escape/target.txt', /outside the workspace/],
      ['escape/new.txt', /outside the workspace/],
      ['escape/new/deeper/file.txt', /outside the workspace/],
      ['dangling', /points to nothing usable/],
    ])('refuses %j and changes nothing outside', async (requested, message) => {
      const before = await listAll(outside);
      const error = await expectToolError(write({ path: requested, content: 'pwned' }));
      expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', kind: 'parameter', retryable: false });
      expect(error.message).toMatch(message);
      expect(await listAll(outside)).toEqual(before);
      expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).toBe('original\n');
    });

    it('writes through a symlink that stays inside, to its target, keeping the link', async () => {
      expect(await write({ path: 'inner-link.txt', content: 'after\n' })).toMatchObject({
        path: 'inner-link.txt',
        created: false,
      });
      expect(await readFile(path.join(workspace, 'docs', 'real.txt'), 'utf8')).toBe('after\n');
      expect((await lstat(path.join(workspace, 'inner-link.txt'))).isSymbolicLink()).toBe(true);
    });

    it('treats URL-encoded traversal as a literal folder name inside the workspace', async () => {
      expect((await write({ path: '%2e%2e/x.txt', content: 'x' })).path).toBe('%2e%2e/x.txt');
      expect(await readFile(path.join(workspace, '%2e%2e', 'x.txt'), 'utf8')).toBe('x');
    });
  });

  it('rejects with the abort reason and leaves nothing behind when the signal has fired', async () => {
    const reason = new DOMException('The operation was aborted.', 'AbortError');
    const aborted = createTestContext({ signal: AbortSignal.abort(reason) });
    await expect(write({ path: 'aborted.txt', content: 'x' }, aborted)).rejects.toBe(reason);
    expect((await listAll(workspace)).filter((name) => name.includes('aborted'))).toEqual([]);
  });
});
