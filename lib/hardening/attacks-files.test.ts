import { execFileSync, spawn } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateInput } from '../executor/validate-input';
import { createReadFileTool, type ReadFileInput } from '../tools/read-file';
import { hasProcFd, listWorkspaceFolder, openWorkspaceFolder, resolveInWorkspace } from '../tools/sandbox';
import { createTempDir, createTestContext, expectToolError } from '../tools/test-helpers';
import { createWriteFileTool, type WriteFileInput } from '../tools/write-file';
import { crowding } from './testing/machine-pace';

/**
 * Attacks on the path sandbox through `read_file` and `write_file`: traversal in every spelling,
 * symlinks out, a symlink or FIFO swapped in after the check (TOCTOU), special files, hard links.
 * The workspace sits next to an `outside` folder holding a secret; nothing may read it, and
 * nothing may be written there.
 */

const SECRET = 'OUTSIDE-SECRET-7f3a';
let base: { dir: string; remove: () => Promise<void> };
let ws: string;
let outside: string;
let sockets: Server[] = [];

beforeAll(async () => {
  base = await createTempDir('toolscope-attacks-files-');
  ws = path.join(base.dir, 'ws');
  outside = path.join(base.dir, 'outside');
});

beforeEach(async () => {
  for (const dir of [ws, outside]) await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(path.join(ws, 'dir'), { recursive: true });
  await fs.mkdir(path.join(outside, 'dir'), { recursive: true });
  await fs.writeFile(path.join(outside, 'secret.txt'), SECRET);
  await fs.writeFile(path.join(outside, 'dir', 'secret.txt'), SECRET);
  await fs.writeFile(path.join(ws, 'dir', 'secret.txt'), 'inside');
  await fs.writeFile(path.join(ws, 'notes.txt'), 'notes');
});

afterAll(async () => {
  for (const server of sockets) server.close();
  sockets = [];
  await base.remove();
});

async function read(input: ReadFileInput, signal?: AbortSignal) {
  const tool = createReadFileTool({ workspace: ws });
  return tool.execute(tool.inputSchema.parse(input), createTestContext(signal ? { signal } : {}));
}
async function write(input: WriteFileInput) {
  const tool = createWriteFileTool({ workspace: ws });
  return tool.execute(tool.inputSchema.parse(input), createTestContext());
}

/** Every file under `dir`, relative, so a test can say nothing new appeared there. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

async function outsideUntouched() {
  expect(await filesUnder(outside)).toEqual(['dir', 'dir/secret.txt', 'secret.txt']);
  expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  expect(await fs.readFile(path.join(outside, 'dir', 'secret.txt'), 'utf8')).toBe(SECRET);
}

/**
 * A child process that, for `ms`, puts `b` in `a`'s place and back, over and over, as fast as it
 * can: an attacker racing the tool between its check and its open.
 */
/**
 * A process that swaps each pair of paths back and forth until `stop` (or `ms` at most): `started`
 * resolves once it swaps, `done` once it has exited (each swap finished, every path back).
 */
function swapper(
  pairs: [string, string][],
  ms = 30_000,
): { started: Promise<void>; stop: () => Promise<void>; done: Promise<void> } {
  // Each state is held for a random fraction of a millisecond, so a check can pass on one and
  // the open meet the other. SIGTERM ends it between two rounds.
  const script = `
    const fs = require('node:fs');
    const pairs = ${JSON.stringify(pairs)};
    const end = Date.now() + ${ms};
    let stopping = false;
    process.on('SIGTERM', () => { stopping = true; });
    const hold = () => { const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 400000)); while (process.hrtime.bigint() < until); };
    const round = () => {
      for (const [a, b] of pairs) {
        try { fs.renameSync(a, a + '.swap'); fs.renameSync(b, a); hold(); fs.renameSync(a, b); fs.renameSync(a + '.swap', a); hold(); } catch {}
      }
      if (!stopping && Date.now() < end) setImmediate(round);
    };
    process.stdout.write('swapping\\n', round);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return {
    started,
    done,
    stop: () => {
      child.kill('SIGTERM');
      return done;
    },
  };
}

describe('path traversal in every form', () => {
  const escapes = () => [
    '../outside/secret.txt',
    '../../etc/passwd',
    '..',
    '../',
    './../outside/secret.txt',
    'dir/../../outside/secret.txt',
    'dir/./../../outside/secret.txt',
    'a/b/../../../outside/secret.txt',
    'dir/..//../outside/secret.txt',
    '..\\outside\\secret.txt',
    'dir\\..\\..\\outside\\secret.txt',
    '..\\/outside/secret.txt',
    '/etc/passwd',
    '//etc/passwd',
    '/proc/self/environ',
    'OUTSIDE/secret.txt',
    'WORKSPACE/../outside/secret.txt',
    '/dev/zero',
  ];

  /** The absolute spellings name the temporary folders, known only once they exist. */
  const absolute = (requested: string) => requested.replace('OUTSIDE', outside).replace('WORKSPACE', ws);

  it.each(escapes())('read_file refuses %j', async (template) => {
    const requested = absolute(template);
    const error = await expectToolError(read({ path: requested }));
    expect(error).toMatchObject({ code: 'SECURITY_VIOLATION', kind: 'parameter' });
    expect(error.message).not.toContain(SECRET);
  });

  it.each(escapes())('write_file refuses %j and writes nothing', async (template) => {
    const requested = absolute(template);
    const error = await expectToolError(write({ path: requested, content: 'pwned' }));
    expect(error.code).toMatch(/SECURITY_VIOLATION|IS_A_DIRECTORY/);
    await outsideUntouched();
  });

  it.each([
    ['%2e%2e/outside/secret.txt', 'percent-encoded dots'],
    ['%2e%2e%2foutside%2fsecret.txt', 'percent-encoded slashes'],
    ['..%2foutside%2fsecret.txt', 'dots with an encoded slash'],
    ['%252e%252e/outside/secret.txt', 'double-encoded dots'],
    ['..%252f..%252foutside%252fsecret.txt', 'double-encoded slashes'],
    ['%c0%ae%c0%ae/outside/secret.txt', 'overlong UTF-8 dots'],
    ['\u2024\u2024/outside/secret.txt', 'one-dot leaders'],
    ['\u2025/outside/secret.txt', 'a two-dot leader'],
    ['\uff0e\uff0e/outside/secret.txt', 'fullwidth full stops'],
    ['.\u200b./outside/secret.txt', 'dots around a zero-width space'],
    ['...', 'three dots'],
    ['C:\\Windows\\win.ini', 'a Windows drive path'],
    ['file:///etc/passwd', 'a file URL'],
    ['~/.ssh/id_rsa', 'a home-folder tilde'],
    ['$HOME/.ssh/id_rsa', 'a variable'],
    ['proc/self/root/etc/passwd', '/proc without its slash'],
  ])('treats %j (%s) literally: a name inside the workspace', async (requested) => {
    const error = await expectToolError(read({ path: requested }));
    expect(error.code).toBe('FILE_NOT_FOUND');
    const written = await write({ path: `${requested}.out`, content: 'inside' });
    const real = await fs.realpath(path.join(ws, written.path));
    expect(real.startsWith(`${await fs.realpath(ws)}${path.sep}`)).toBe(true);
    expect(await fs.readFile(real, 'utf8')).toBe('inside');
    await outsideUntouched();
  });

  it.each(['notes.txt\0.png', '\0', '../\0', 'dir/\0/../../outside/secret.txt'])(
    'refuses the NUL byte in %j',
    async (requested) => {
      expect((await expectToolError(read({ path: requested }))).code).toBe('SECURITY_VIOLATION');
      expect((await expectToolError(write({ path: requested, content: 'x' }))).code).toBe('SECURITY_VIOLATION');
      await outsideUntouched();
    },
  );

  it('refuses a name over 255 bytes, and a path over 4095, before touching the disk', async () => {
    for (const requested of ['x'.repeat(256), `dir/${'é'.repeat(128)}`, `${'abcdefgh/'.repeat(455)}x`]) {
      expect((await expectToolError(read({ path: requested }))).code, requested.slice(0, 20)).toBe('INVALID_PATH');
      expect((await expectToolError(write({ path: requested, content: 'x' }))).code).toBe('INVALID_PATH');
    }
    // Nothing of the 455 nested folders was made.
    expect(await filesUnder(ws)).toEqual(['dir', 'dir/secret.txt', 'notes.txt']);
    // The longest allowed name works.
    await expect(write({ path: 'x'.repeat(255), content: 'ok' })).resolves.toMatchObject({ created: true });
  });

  it('refuses a path over the schema limit at validation', () => {
    const tool = createReadFileTool({ workspace: ws });
    const result = validateInput('read_file', tool.inputSchema, { path: 'a/'.repeat(3000) });
    expect(result.ok).toBe(false);
  });
});

describe('symlinks pointing out', () => {
  it('refuses a symlink to a file outside, to read and to write through', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    expect((await expectToolError(read({ path: 'link.txt' }))).code).toBe('SECURITY_VIOLATION');
    expect((await expectToolError(write({ path: 'link.txt', content: 'pwned' }))).code).toBe('SECURITY_VIOLATION');
    await outsideUntouched();
  });

  it('refuses a relative symlink that climbs out, and a chain of links that ends outside', async () => {
    await fs.symlink('../outside/secret.txt', path.join(ws, 'up.txt'));
    await fs.symlink('up.txt', path.join(ws, 'chain1.txt'));
    await fs.symlink('chain1.txt', path.join(ws, 'chain2.txt'));
    for (const name of ['up.txt', 'chain1.txt', 'chain2.txt']) {
      expect((await expectToolError(read({ path: name }))).code, name).toBe('SECURITY_VIOLATION');
      expect((await expectToolError(write({ path: name, content: 'x' }))).code).toBe('SECURITY_VIOLATION');
    }
    await outsideUntouched();
  });

  it('refuses a symlinked folder that leads out, for existing files, new files and new folders below it', async () => {
    await fs.symlink(path.join(outside, 'dir'), path.join(ws, 'out'));
    expect((await expectToolError(read({ path: 'out/secret.txt' }))).code).toBe('SECURITY_VIOLATION');
    expect((await expectToolError(read({ path: 'out' }))).code).toBe('SECURITY_VIOLATION');
    for (const target of ['out/secret.txt', 'out/new.txt', 'out/deep/er/new.txt']) {
      expect((await expectToolError(write({ path: target, content: 'x' }))).code, target).toBe('SECURITY_VIOLATION');
    }
    await outsideUntouched();
  });

  it('refuses links to /proc, /dev and the root, and dangling links (writing would create their target)', async () => {
    await fs.symlink('/proc/self/environ', path.join(ws, 'environ'));
    await fs.symlink('/dev/zero', path.join(ws, 'zero'));
    await fs.symlink('/', path.join(ws, 'root'));
    await fs.symlink(path.join(outside, 'created-by-attack.txt'), path.join(ws, 'dangling.txt'));
    for (const name of ['environ', 'zero', 'root/etc/passwd', 'dangling.txt']) {
      expect((await expectToolError(read({ path: name }))).code, name).toBe('SECURITY_VIOLATION');
      expect((await expectToolError(write({ path: name, content: 'x' }))).code, name).toBe('SECURITY_VIOLATION');
    }
    await outsideUntouched();
  });
});

describe('a symlink swapped in after the check (TOCTOU)', () => {
  /** Replaces ws/dir by a symlink to outside/dir, as an attacker racing the tool would. */
  async function swapDirForLink() {
    await fs.rename(path.join(ws, 'dir'), path.join(ws, 'dir.real'));
    await fs.symlink(path.join(outside, 'dir'), path.join(ws, 'dir'));
  }

  it('a folder swapped for a symlink between the check and the open is refused, not followed (read)', async () => {
    const target = await resolveInWorkspace(ws, 'dir/secret.txt');
    await swapDirForLink();
    const error = await expectToolError(openWorkspaceFolder(target, { create: false }));
    expect(error).toMatchObject({ code: 'SECURITY_VIOLATION' });
    expect(error.message).toMatch(/replaced by a symbolic link/);
  });

  it('a folder swapped for a symlink between the check and the write is refused, nothing lands outside', async () => {
    const target = await resolveInWorkspace(ws, 'dir/sub/new.txt');
    await swapDirForLink();
    const error = await expectToolError(openWorkspaceFolder(target, { create: true }));
    expect(error.code).toBe('SECURITY_VIOLATION');
    await outsideUntouched();
  });

  it('a folder swapped for a symlink before it is listed lists nothing outside', async () => {
    const target = await resolveInWorkspace(ws, 'dir');
    await swapDirForLink();
    if (!(await hasProcFd())) return;
    const error = await expectToolError(listWorkspaceFolder(target));
    expect(error.code).toBe('SECURITY_VIOLATION');
  });

  it('a file swapped for a symlink after the check is not opened through it', async () => {
    const target = await resolveInWorkspace(ws, 'dir/secret.txt');
    await fs.rm(path.join(ws, 'dir', 'secret.txt'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'dir', 'secret.txt'));
    const folder = await openWorkspaceFolder(target, { create: false });
    if (!folder) return; // no /proc here: the path checks above are all there is
    try {
      await expect(fs.open(folder.at('secret.txt'), constants.O_RDONLY | constants.O_NOFOLLOW)).rejects.toMatchObject({
        code: 'ELOOP',
      });
    } finally {
      await folder.close();
    }
  });

  it('reads racing a process that swaps the folder for a symlink out never see the outside file', async () => {
    await fs.symlink(path.join(outside, 'dir'), path.join(ws, 'dir.link'));
    const race = swapper([[path.join(ws, 'dir'), path.join(ws, 'dir.link')]]);
    const outcomes = new Map<string, number>();
    try {
      await race.started;
      const started = Date.now();
      while (Date.now() - started < 1_200) {
        const outcome = await read({ path: 'dir/secret.txt' }).then(
          (output) => output.content,
          (error: { code?: string }) => error.code ?? String(error),
        );
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    } finally {
      await race.stop();
    }
    expect(outcomes.has(SECRET)).toBe(false);
    for (const outcome of outcomes.keys()) {
      expect(['inside', 'SECURITY_VIOLATION', 'FILE_NOT_FOUND', 'NOT_A_DIRECTORY']).toContain(outcome);
    }
  }, 30_000);

  it('writes racing a process that swaps the folder for a symlink out never land outside', async () => {
    await fs.mkdir(path.join(ws, 'dir', 'sub'));
    await fs.mkdir(path.join(outside, 'dir', 'sub'));
    await fs.symlink(path.join(outside, 'dir', 'sub'), path.join(ws, 'dir', 'sub.link'));
    const race = swapper([[path.join(ws, 'dir', 'sub'), path.join(ws, 'dir', 'sub.link')]]);
    let written = 0;
    try {
      await race.started;
      // For 1.2 s and more than ten writes, however slow the machine is, all while the swapper runs.
      const started = Date.now();
      while (Date.now() - started < 1_200 || written <= 10) {
        await write({ path: `dir/sub/file-${written}.txt`, content: 'pwned' }).catch(() => {});
        written++;
      }
    } finally {
      await race.stop();
    }
    expect(await filesUnder(path.join(outside, 'dir', 'sub'))).toEqual([]);
    expect(written).toBeGreaterThan(10);
  }, 30_000);
});

describe('FIFOs, sockets and devices', () => {
  const mkfifo = (at: string) => execFileSync('mkfifo', [at]);

  it('refuses to read a FIFO, at once, without waiting for a writer', async () => {
    mkfifo(path.join(ws, 'pipe'));
    const started = Date.now();
    const error = await expectToolError(read({ path: 'pipe' }, AbortSignal.timeout(5_000)));
    expect(error.code).toBe('NOT_A_FILE');
    expect(Date.now() - started).toBeLessThan(2_000 * crowding());
  });

  it('refuses to write over a FIFO, without blocking, and leaves it a FIFO', async () => {
    mkfifo(path.join(ws, 'pipe'));
    expect((await expectToolError(write({ path: 'pipe', content: 'x' }))).code).toBe('NOT_A_FILE');
    expect((await fs.lstat(path.join(ws, 'pipe'))).isFIFO()).toBe(true);
  });

  it('reads racing a process that swaps the file for a FIFO never hang', async () => {
    mkfifo(path.join(ws, 'pipe'));
    const race = swapper([[path.join(ws, 'notes.txt'), path.join(ws, 'pipe')]]);
    const outcomes = new Set<string>();
    // A read that hangs on the FIFO: 3 s on the reference machine at rest, stretched by the
    // machine's crowding (within the test's time limit).
    const hangMs = Math.round(Math.min(3_000 * crowding(), 10_000));
    try {
      await race.started;
      const started = Date.now();
      while (Date.now() - started < 1_200) {
        const outcome = await read({ path: 'notes.txt' }, AbortSignal.timeout(hangMs)).then(
          (output) => output.content,
          (error: { code?: string; name?: string }) => error.code ?? error.name ?? String(error),
        );
        outcomes.add(outcome);
      }
    } finally {
      await race.stop();
    }
    expect(outcomes.has('TimeoutError')).toBe(false);
    for (const outcome of outcomes) {
      expect(['notes', 'NOT_A_FILE', 'FILE_NOT_FOUND', 'SECURITY_VIOLATION']).toContain(outcome);
    }
  }, 30_000);

  it('refuses a Unix socket', async () => {
    const server = createServer();
    sockets.push(server);
    await new Promise<void>((resolve) => server.listen(path.join(ws, 'sock'), resolve));
    expect((await expectToolError(read({ path: 'sock' }))).code).toBe('NOT_A_FILE');
    expect((await expectToolError(write({ path: 'sock', content: 'x' }))).code).toBe('NOT_A_FILE');
  });

  it('refuses device files, by path and by link', async () => {
    await fs.symlink('/dev/random', path.join(ws, 'random'));
    for (const requested of ['/dev/zero', '/dev/random', 'random']) {
      expect((await expectToolError(read({ path: requested }))).code, requested).toBe('SECURITY_VIOLATION');
    }
  });
});

describe('hard links', () => {
  it('a write to a hard link inside replaces the link; the outside file it shared keeps its content', async () => {
    const linked = path.join(ws, 'hard.txt');
    try {
      await fs.link(path.join(outside, 'secret.txt'), linked);
    } catch {
      return; // another file system, or links not allowed here: nothing to attack
    }
    await write({ path: 'hard.txt', content: 'replaced' });
    expect(await fs.readFile(linked, 'utf8')).toBe('replaced');
    await outsideUntouched();
    expect((await fs.stat(path.join(outside, 'secret.txt'))).nlink).toBe(1);
  });
});
