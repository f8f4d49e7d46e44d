import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileChange, MAX_COMPARED_BYTES, MAX_DIFF_LINES } from './file-change';
import { createTempDir } from './test-helpers';

/** `fileChange`: what a pending `write_file` would change, against real files in a temporary workspace. */
let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
const same = (text: string) => text;

beforeAll(async () => {
  temp = await createTempDir('toolscope-file-change-');
  const base = await realpath(temp.dir);
  workspace = path.join(base, 'ws');
  await mkdir(path.join(workspace, 'docs'), { recursive: true });
  await writeFile(path.join(base, 'outside.txt'), 'outside\n');
  await symlink(path.join(base, 'outside.txt'), path.join(workspace, 'escape.txt'));
  await writeFile(path.join(workspace, 'docs/a.txt'), 'one\ntwo\n');
});

afterAll(() => temp.remove());

describe('fileChange', () => {
  it('says new, same, or the line diff with unchanged runs folded', async () => {
    expect(await fileChange(workspace, 'docs/none.txt', 'x', same)).toEqual({ kind: 'new' });
    expect(await fileChange(workspace, 'docs/a.txt', 'one\ntwo\n', same)).toEqual({ kind: 'same' });
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    await writeFile(path.join(workspace, 'docs/long.txt'), `${lines.join('\n')}\n`);
    const edited = lines.map((line) => (line === 'line 15' ? 'line fifteen' : line));
    const change = await fileChange(workspace, 'docs/long.txt', `${edited.join('\n')}\n`, same);
    expect(change).toMatchObject({ kind: 'diff', added: 1, removed: 1, omitted: 0 });
    const shown = change.kind === 'diff' ? change.lines : [];
    expect(shown[0]).toEqual({ kind: 'skip', count: 11 });
    expect(shown).toContainEqual({ kind: 'removed', text: 'line 15', oldNo: 15, newNo: null });
    expect(shown).toContainEqual({ kind: 'added', text: 'line fifteen', oldNo: null, newNo: 15 });
    expect(shown.at(-1)).toEqual({ kind: 'skip', count: 12 });
  });

  it('does not count a missing final newline as a changed line', async () => {
    await writeFile(path.join(workspace, 'docs/eol.txt'), 'a\nb');
    expect(await fileChange(workspace, 'docs/eol.txt', 'a\nb\n', same)).toEqual({
      kind: 'diff',
      added: 0,
      removed: 0,
      lines: [],
      omitted: 0,
    });
  });

  it('bounds the lines it carries and counts the rest', async () => {
    const many = Array.from({ length: MAX_DIFF_LINES + 50 }, (_, i) => `new ${i}`).join('\n');
    await writeFile(path.join(workspace, 'docs/small.txt'), 'old\n');
    const change = await fileChange(workspace, 'docs/small.txt', many, same);
    expect(change).toMatchObject({ kind: 'diff' });
    expect(change.kind === 'diff' && change.lines.length).toBe(MAX_DIFF_LINES);
    expect(change).toMatchObject({ kind: 'diff', added: MAX_DIFF_LINES + 50, removed: 1, omitted: 51 });
  });

  it('says why it cannot compare: a folder, binary, too large, a path out of the workspace', async () => {
    expect(await fileChange(workspace, 'docs', 'x', same)).toMatchObject({ kind: 'unknown', reason: /folder/ });
    await writeFile(
      path.join(workspace, 'docs/img.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]),
    );
    expect(await fileChange(workspace, 'docs/img.png', 'x', same)).toMatchObject({
      kind: 'unknown',
      reason: /not text/,
    });
    await writeFile(path.join(workspace, 'docs/huge.txt'), 'y'.repeat(MAX_COMPARED_BYTES + 1));
    expect(await fileChange(workspace, 'docs/huge.txt', 'x', same)).toMatchObject({
      kind: 'unknown',
      reason: /too large/,
    });
    expect(await fileChange(workspace, 'escape.txt', 'x', same)).toMatchObject({ kind: 'unknown', reason: /refused/ });
    expect(await fileChange(workspace, '../outside.txt', 'x', same)).toMatchObject({
      kind: 'unknown',
      reason: /refused/,
    });
  });
});
