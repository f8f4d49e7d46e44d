import { execFileSync } from 'node:child_process';
import { chmod, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReadFileTool, type ReadFileInput } from './read-file';
import { createTempDir, createTestContext, expectToolError } from './test-helpers';

let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
let tool: ReturnType<typeof createReadFileTool>;
const ctx = createTestContext();
const read = async (input: ReadFileInput, context = ctx) => tool.execute(input, context);

beforeAll(async () => {
  temp = await createTempDir();
  const base = await realpath(temp.dir);
  workspace = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(workspace, 'src', 'lib'), { recursive: true });
  await mkdir(path.join(workspace, 'empty'));
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
  await writeFile(path.join(workspace, 'hello.txt'), 'line 1\nline 2\nline 3\n');
  await writeFile(path.join(workspace, 'no-newline.txt'), 'a\nb');
  await writeFile(path.join(workspace, 'crlf.txt'), 'a\r\nb\r\n');
  await writeFile(path.join(workspace, 'empty.txt'), '');
  await writeFile(path.join(workspace, 'bom.txt'), '\ufeffwith bom\n');
  await writeFile(path.join(workspace, 'utf8.txt'), 'héllo 你好 🎉\n');
  await writeFile(path.join(workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await writeFile(path.join(workspace, 'ten.txt'), Array.from({ length: 10 }, (_, i) => `row ${i + 1}`).join('\n'));
  await writeFile(path.join(workspace, 'src', 'index.ts'), 'export {};\n');
  await writeFile(
    path.join(workspace, 'image.png'),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]),
  );
  await writeFile(path.join(workspace, 'doc.pdf'), '%PDF-1.4\n%âãÏÓ\n');
  await writeFile(path.join(workspace, 'archive.zip'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]));
  await writeFile(path.join(workspace, 'program'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01]));
  await writeFile(path.join(workspace, 'data.gz'), Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
  await writeFile(path.join(workspace, 'nul.txt'), 'text\0with a NUL\n');
  await writeFile(path.join(workspace, 'exactly-100.txt'), 'x'.repeat(100));
  await writeFile(path.join(workspace, 'over-100.txt'), 'x'.repeat(101));
  await writeFile(path.join(workspace, 'locked.txt'), 'locked\n');
  await chmod(path.join(workspace, 'locked.txt'), 0o000);
  await symlink('/etc/passwd', path.join(workspace, 'passwd'));
  await symlink(outside, path.join(workspace, 'escape'));
  await symlink(path.join(workspace, 'hello.txt'), path.join(workspace, 'hello-link.txt'));
  execFileSync('mkfifo', [path.join(workspace, 'pipe')]);
  tool = createReadFileTool({ workspace, maxBytes: 100, defaultLimit: 4 });
});

afterAll(() => temp.remove());

describe('read_file', () => {
  it('declares a read-only tool whose schema describes every field', () => {
    expect(tool.name).toBe('read_file');
    expect(tool.sideEffect).toBe('read');
    expect(tool.description).toMatch(/1-based/);
    expect(tool.description).toMatch(/100 bytes/);
    const schema = z.toJSONSchema(tool.inputSchema) as {
      properties: Record<string, { description?: string }>;
      required: string[];
    };
    expect(schema.required).toEqual(['path']);
    for (const field of ['path', 'offset', 'limit']) expect(schema.properties[field]?.description).toBeTruthy();
    expect(tool.inputSchema.safeParse({ path: 'a', offset: 0 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ path: 'a', limit: 0 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ path: '' }).success).toBe(false);
  });

  it('reads a whole small file by lines', async () => {
    expect(await read({ path: 'hello.txt' })).toEqual({
      path: 'hello.txt',
      content: 'line 1\nline 2\nline 3',
      totalLines: 3,
      offset: 1,
      linesReturned: 3,
      truncated: false,
      bytes: 21,
    });
  });

  it('counts lines the way an editor does', async () => {
    expect(await read({ path: 'no-newline.txt' })).toMatchObject({ content: 'a\nb', totalLines: 2 });
    expect(await read({ path: 'crlf.txt' })).toMatchObject({ content: 'a\nb', totalLines: 2 });
    expect(await read({ path: 'empty.txt' })).toMatchObject({ content: '', totalLines: 0, linesReturned: 0 });
  });

  it('decodes UTF-8, drops a BOM and replaces invalid bytes instead of failing', async () => {
    expect((await read({ path: 'utf8.txt' })).content).toBe('héllo 你好 🎉');
    expect((await read({ path: 'bom.txt' })).content).toBe('with bom');
    expect((await read({ path: 'latin1.txt' })).content).toBe('caf\ufffd');
  });

  it('returns a window of lines with offset (1-based) and limit', async () => {
    expect(await read({ path: 'ten.txt', offset: 3, limit: 2 })).toMatchObject({
      content: 'row 3\nrow 4',
      totalLines: 10,
      offset: 3,
      linesReturned: 2,
      truncated: true,
      nextOffset: 5,
    });
    const last = await read({ path: 'ten.txt', offset: 9, limit: 5 });
    expect(last).toMatchObject({ content: 'row 9\nrow 10', truncated: false, linesReturned: 2 });
    expect(last.nextOffset).toBeUndefined();
  });

  it('applies the default line limit and says where to read on', async () => {
    expect(await read({ path: 'ten.txt' })).toMatchObject({
      content: 'row 1\nrow 2\nrow 3\nrow 4',
      truncated: true,
      nextOffset: 5,
    });
  });

  it('refuses an offset past the end, saying how many lines there are', async () => {
    const error = await expectToolError(read({ path: 'ten.txt', offset: 11 }));
    expect(error).toMatchObject({ code: 'OFFSET_OUT_OF_RANGE', kind: 'parameter', details: { totalLines: 10 } });
    expect(error.message).toMatch(/has 10 lines/);
  });

  it('reports a missing file as FILE_NOT_FOUND', async () => {
    const error = await expectToolError(read({ path: 'missing.txt' }));
    expect(error).toMatchObject({ code: 'FILE_NOT_FOUND', kind: 'business', retryable: false });
    expect(error.message).toContain('"missing.txt"');
    expect(error.message).not.toContain(workspace);
  });

  it('lists the entries of a folder in the IS_A_DIRECTORY error', async () => {
    const error = await expectToolError(read({ path: 'src' }));
    expect(error).toMatchObject({
      code: 'IS_A_DIRECTORY',
      kind: 'parameter',
      details: { entries: ['index.ts', 'lib/'], totalEntries: 2 },
    });
    expect(error.message).toMatch(/folder.*index\.ts, lib\//);
    expect(error.hint).toContain('"src/index.ts"');
    const root = await expectToolError(read({ path: '.' }));
    expect(root.details?.entries).toContain('hello.txt');
    expect((await expectToolError(read({ path: 'empty' }))).message).toMatch(/empty folder/);
  });

  it('enforces the size limit, allowing a file exactly at it', async () => {
    expect((await read({ path: 'exactly-100.txt' })).bytes).toBe(100);
    const error = await expectToolError(read({ path: 'over-100.txt' }));
    expect(error).toMatchObject({ code: 'SIZE_EXCEEDED', kind: 'business', details: { bytes: 101, maxBytes: 100 } });
  });

  it.each([
    ['image.png', 'PNG image'],
    ['doc.pdf', 'PDF document'],
    ['archive.zip', 'ZIP archive'],
    ['program', 'ELF executable'],
    ['data.gz', 'gzip archive'],
    ['nul.txt', 'NUL bytes'],
  ])('refuses the binary file %s', async (file, format) => {
    const error = await expectToolError(read({ path: file }));
    expect(error).toMatchObject({ code: 'BINARY_FILE', kind: 'business', retryable: false });
    expect(error.message).toContain(format);
  });

  it('refuses a FIFO without blocking on it', async () => {
    const error = await expectToolError(read({ path: 'pipe' }));
    expect(error).toMatchObject({ code: 'NOT_A_FILE', kind: 'parameter' });
  });

  it.skipIf(process.getuid?.() === 0)('reports an unreadable file as PERMISSION_DENIED', async () => {
    const error = await expectToolError(read({ path: 'locked.txt' }));
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', kind: 'permission', retryable: false });
  });

  describe('sandbox', () => {
    it.each([
      ['/etc/passwd', /absolute/],
      ['../outside/secret.txt', /"\.\."/],
      ['src/../../outside/secret.txt', /"\.\."/],
      ['hello.txt\0.png', /NUL/],
      ['passwd', /outside the workspace/],
      ['escape/secret.txt', /outside the workspace/],
    ])('refuses %j as a SECURITY_VIOLATION', async (requested, message) => {
      const error = await expectToolError(read({ path: requested }));
      expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', kind: 'parameter', retryable: false });
      expect(error.message).toMatch(message);
    });

    it('treats URL-encoded traversal literally (no such file inside the workspace)', async () => {
      const error = await expectToolError(read({ path: '%2e%2e/outside/secret.txt' }));
      expect(error.code).toBe('FILE_NOT_FOUND');
    });

    it('follows a symlink that stays inside the workspace', async () => {
      expect(await read({ path: 'hello-link.txt' })).toMatchObject({ path: 'hello-link.txt', totalLines: 3 });
    });
  });

  it('rejects with the abort reason when the signal has fired', async () => {
    const reason = new DOMException('The operation timed out.', 'TimeoutError');
    const aborted = createTestContext({ signal: AbortSignal.abort(reason) });
    await expect(read({ path: 'hello.txt' }, aborted)).rejects.toBe(reason);
  });

  it('uses 1 MiB and 2000 lines by default', async () => {
    const defaults = createReadFileTool({ workspace });
    expect(defaults.description).toMatch(/1 MiB/);
    expect(defaults.description).toMatch(/2000 lines/);
    await writeFile(path.join(workspace, 'many.txt'), Array.from({ length: 2500 }, (_, i) => i).join('\n'));
    expect(await defaults.execute({ path: 'many.txt' }, ctx)).toMatchObject({ linesReturned: 2000, nextOffset: 2001 });
  });
});
