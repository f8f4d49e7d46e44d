import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isProcessOutput, type ProcessOutput } from '../executor/process-output';
import { crowding } from '../hardening/testing/machine-pace';
import { processesWith, sleepMarker, waitUntil } from '../hardening/testing/processes';
import { detectShellSandbox } from './process-sandbox';
import { createRunShellTool, type RunShellInput, type RunShellOptions } from './run-shell';
import { createTempDir, createTestContext, expectToolError } from './test-helpers';

let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
const ctx = createTestContext();

beforeAll(async () => {
  temp = await createTempDir();
  workspace = path.join(await realpath(temp.dir), 'ws');
  await mkdir(path.join(workspace, 'sub'), { recursive: true });
  await writeFile(path.join(workspace, 'file.txt'), 'content\n');
});

afterAll(() => temp.remove());

function shell(allow: string[], extra: Partial<RunShellOptions> = {}) {
  const tool = createRunShellTool({ workspace, allow, ...extra });
  return async (input: RunShellInput, context = ctx): Promise<ProcessOutput> => tool.execute(input, context);
}

describe('run_shell', () => {
  it('declares an exec tool, not retried, whose description names the allowed programs', () => {
    const tool = createRunShellTool({ workspace, allow: ['ls', 'git'] });
    expect(tool).toMatchObject({ name: 'run_shell', sideEffect: 'exec', timeoutMs: 30_000 });
    expect(tool.retry.maxAttempts).toBe(1);
    expect(tool.description).toContain('Allowed programs: ls, git.');
    const schema = z.toJSONSchema(tool.inputSchema) as { properties: Record<string, { description?: string }> };
    for (const field of ['command', 'cwd', 'stdin']) expect(schema.properties[field]?.description).toBeTruthy();
    expect(tool.inputSchema.safeParse({ command: [] }).success).toBe(false);
    expect(createRunShellTool({ workspace, allow: [] }).description).toContain('Allowed programs: none');
    expect(tool.description).toMatch(
      /sandbox: they see only the workspace and the system's programs, with no network\.$/,
    );
    const unsandboxed = detectShellSandbox({ setting: 'none', allowUnsandboxed: true });
    expect(createRunShellTool({ workspace, allow: ['ls'], sandbox: unsandboxed }).description).not.toContain('sandbox');
  });

  it('runs a program and returns process output', async () => {
    const output = await shell(['echo'])({ command: ['echo', 'hello', 'world'] });
    expect(isProcessOutput(output)).toBe(true);
    expect(output).toMatchObject({ stdout: 'hello world\n', stderr: '', exitCode: 0, signal: null });
  });

  it('passes shell syntax through as plain arguments', async () => {
    const run = shell(['echo']);
    expect((await run({ command: ['echo', 'hi; rm -rf /'] })).stdout).toBe('hi; rm -rf /\n');
    const tricky = ['$(whoami)', '`id`', '&&', 'ls', '|', 'cat', '>', 'out.txt', '*', '$HOME', "'quoted'"];
    expect((await run({ command: ['echo', ...tricky] })).stdout).toBe(`${tricky.join(' ')}\n`);
    expect(existsSync(path.join(workspace, 'out.txt'))).toBe(false);
  });

  it('returns a non-zero exit as process output instead of throwing', async () => {
    const output = await shell(['sh'])({ command: ['sh', '-c', 'echo partial; echo oops >&2; exit 3'] });
    expect(output).toMatchObject({ stdout: 'partial\n', stderr: 'oops\n', exitCode: 3, signal: null });
  });

  it('reports a process killed by a signal with exit code 128 + signal number', async () => {
    const output = await shell(['sh'])({ command: ['sh', '-c', 'kill -TERM $$'] });
    expect(output).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
  });

  describe('allowlist', () => {
    it('declares a permission check that refuses a program not on the allowlist, naming the config file', () => {
      const tool = createRunShellTool({
        workspace,
        allow: ['echo', 'ls'],
        configFile: '/etc/ts/toolscope.config.json',
      });
      expect(tool.checkPermission?.({ command: ['rm', '-rf', '.'] })).toEqual({
        check: 'shell allowlist',
        message:
          '"rm" is not on the shell allowlist (shell.allow in /etc/ts/toolscope.config.json). Allowed: echo, ls.',
        hint: 'Do not retry this program; use an allowed one, or ask the user to add it to the shell allowlist.',
        details: { program: 'rm', allow: ['echo', 'ls'], configFile: '/etc/ts/toolscope.config.json' },
      });
      expect(tool.checkPermission?.({ command: ['/bin/echo'] })).toMatchObject({
        check: 'shell allowlist',
        message: expect.stringMatching(/"\/bin\/echo" is a path, and only bare names of allowed programs may run/),
      });
      expect(tool.checkPermission?.({ command: ['echo', 'hi'] })).toBeNull();
      // An empty name is an invalid command, reported by execute, not a policy matter.
      expect(tool.checkPermission?.({ command: [''] })).toBeNull();
    });

    it('says the defaults are in use when no config file is', () => {
      const tool = createRunShellTool({ workspace, allow: ['echo'], configFile: null });
      expect(tool.checkPermission?.({ command: ['rm'] })?.message).toMatch(
        /^"rm" is not on the shell allowlist \(shell\.allow; no config file is in use, so these are the defaults — to change them, create toolscope\.config\.json in the working folder or the data folder\)\. Allowed: echo\.$/,
      );
    });

    it('still refuses a program that is not allowed when execute is called directly', async () => {
      const error = await expectToolError(shell(['echo'])({ command: ['rm', '-rf', '.'] }));
      expect(error).toMatchObject({ code: 'PERMISSION_DENIED', kind: 'permission', retryable: false });
      expect(error.message).toMatch(
        /"rm" is not on the shell allowlist \(shell\.allow in toolscope\.config\.json\)\. Allowed: echo\./,
      );
      expect(error.details).toMatchObject({ check: 'shell allowlist', program: 'rm' });
      expect(existsSync(path.join(workspace, 'file.txt'))).toBe(true);
    });

    it.each(['/bin/echo', '/usr/bin/echo', './echo', 'bin/echo', '../echo'])(
      'refuses the path %s even though "echo" is allowed',
      async (program) => {
        const error = await expectToolError(shell(['echo'])({ command: [program, 'x'] }));
        expect(error).toMatchObject({ code: 'PERMISSION_DENIED', kind: 'permission' });
        expect(error.message).toMatch(/bare names/);
      },
    );

    it('runs a path that is allowed exactly', async () => {
      const echo = existsSync('/bin/echo') ? '/bin/echo' : '/usr/bin/echo';
      expect((await shell([echo])({ command: [echo, 'ok'] })).stdout).toBe('ok\n');
    });

    it('reports an allowed program that is not installed as PROGRAM_NOT_FOUND', async () => {
      const missing = 'toolscope-no-such-program';
      const error = await expectToolError(shell([missing])({ command: [missing] }));
      expect(error).toMatchObject({ code: 'PROGRAM_NOT_FOUND', kind: 'parameter', retryable: false });
    });

    it('reports an allowed path that does not exist as PROGRAM_NOT_FOUND', async () => {
      const missing = '/nonexistent/toolscope-program';
      const error = await expectToolError(shell([missing])({ command: [missing] }));
      expect(error).toMatchObject({ code: 'PROGRAM_NOT_FOUND', kind: 'parameter' });
    });

    it('skips PATH entries it cannot use and files that are not executable', async () => {
      await mkdir(path.join(workspace, '..', 'tools-bin'), { recursive: true });
      await writeFile(path.join(workspace, '..', 'tools-bin', 'echo'), 'not a program', { mode: 0o644 });
      const run = shell(['echo'], { path: `/nonexistent:${path.join(workspace, '..', 'tools-bin')}:/usr/bin:/bin` });
      expect((await run({ command: ['echo', 'real echo'] })).stdout).toBe('real echo\n');
      const onlyFake = shell(['echo'], { path: path.join(workspace, '..', 'tools-bin') });
      expect((await expectToolError(onlyFake({ command: ['echo'] }))).code).toBe('PROGRAM_NOT_FOUND');
    });

    it('passes the bare name as argv[0]', async () => {
      // od shows the NUL-separated command line as text (a NUL in stdout would make it binary).
      const output = await shell(['od'])({ command: ['od', '-An', '-c', '/proc/self/cmdline'] });
      expect(output.stdout.replace(/\s+/g, ' ').trim()).toBe(
        'o d \\0 - A n \\0 - c \\0 / p r o c / s e l f / c m d l i n e \\0',
      );
    });

    it('does not find programs through relative or workspace PATH entries', async () => {
      const env = await shell(['env'], { path: `.:bin:${workspace}/bin:/usr/bin:/bin` })({ command: ['env'] });
      expect(env.stdout).toMatch(/^PATH=\/usr\/bin:\/bin$/m);
    });

    it('refuses an empty program name and NUL bytes', async () => {
      const run = shell(['echo']);
      expect((await expectToolError(run({ command: [''] }))).code).toBe('INVALID_COMMAND');
      expect((await expectToolError(run({ command: ['echo', 'a\0b'] }))).code).toBe('INVALID_COMMAND');
    });
  });

  describe('environment', () => {
    it('gives the child none of the server environment', async () => {
      process.env.TOOLSCOPE_TEST_SECRET = 'sk-test-very-secret';
      try {
        const output = await shell(['env'], { env: { EDITOR: 'true' } })({ command: ['env'] });
        expect(output.stdout).not.toContain('TOOLSCOPE_TEST_SECRET');
        expect(output.stdout).not.toContain('sk-test-very-secret');
        const names = output.stdout
          .trim()
          .split('\n')
          .map((line) => line.slice(0, line.indexOf('=')))
          .sort();
        expect(names).toEqual(['EDITOR', 'HOME', 'LANG', 'LC_ALL', 'NO_COLOR', 'PATH', 'PWD', 'TERM']);
        expect(output.stdout).toContain(`HOME=${workspace}\n`);
        expect(output.stdout).toContain('LANG=C.UTF-8\n');
      } finally {
        delete process.env.TOOLSCOPE_TEST_SECRET;
      }
    });
  });

  describe('cwd', () => {
    it('runs in the workspace by default and in a subfolder when asked', async () => {
      const run = shell(['pwd']);
      expect((await run({ command: ['pwd'] })).stdout).toBe(`${workspace}\n`);
      expect((await run({ command: ['pwd'], cwd: 'sub' })).stdout).toBe(`${path.join(workspace, 'sub')}\n`);
    });

    it.each([
      ['../', 'SECURITY_VIOLATION'],
      ['/tmp', 'SECURITY_VIOLATION'],
      ['sub/../..', 'SECURITY_VIOLATION'],
      ['missing', 'CWD_NOT_FOUND'],
      ['file.txt', 'NOT_A_DIRECTORY'],
    ])('refuses the cwd %j with %s', async (cwd, code) => {
      const error = await expectToolError(shell(['pwd'])({ command: ['pwd'], cwd }));
      expect(error).toMatchObject({ code, kind: 'parameter' });
    });
  });

  describe('stdin', () => {
    it('sends stdin to the program', async () => {
      expect((await shell(['cat'])({ command: ['cat'], stdin: 'from stdin\n' })).stdout).toBe('from stdin\n');
    });

    it('gives end-of-file at once when there is no stdin', async () => {
      expect(await shell(['cat'])({ command: ['cat'] })).toMatchObject({ stdout: '', exitCode: 0 });
    });

    it('does not fail when the program ignores its stdin', async () => {
      const output = await shell(['true'])({ command: ['true'], stdin: 'x'.repeat(512 * 1024) });
      expect(output.exitCode).toBe(0);
    });
  });

  describe.each([
    ['in the bubblewrap sandbox', detectShellSandbox()],
    ['without a sandbox (allowed by the config)', detectShellSandbox({ setting: 'none', allowUnsandboxed: true })],
  ])('process group, %s', (_, sandbox) => {
    it('starts the child in a group (and, sandboxed, a pid namespace) of its own', async () => {
      const output = await shell(['sh'], { sandbox })({ command: ['sh', '-c', 'cat /proc/$$/stat'] });
      const fields = output.stdout.slice(output.stdout.lastIndexOf(')') + 2).split(' ');
      const pid = Number(output.stdout.split(' ')[0]);
      const own = readFileSync('/proc/self/stat', 'utf8');
      const ownGroup = Number(own.slice(own.lastIndexOf(')') + 2).split(' ')[2]);
      if (sandbox.kind === 'none') expect(Number(fields[2])).not.toBe(ownGroup);
      else {
        // Under bwrap's init (1, the group leader), beside the lifeline's shell and watcher.
        expect(Number(fields[2])).toBe(1);
        expect(pid).toBeLessThan(10);
      }
    });

    it('kills the whole group, grandchildren included, when the signal aborts', async () => {
      const controller = new AbortController();
      const marker = sleepMarker();
      const run = shell(['sh'], { sandbox })(
        { command: ['sh', '-c', `sleep ${marker} & sleep ${marker} & echo started; wait`] },
        createTestContext({ signal: controller.signal }),
      );
      await waitUntil(() => processesWith(marker).filter(({ cmdline }) => cmdline.startsWith('sleep ')).length === 2);
      const reason = new DOMException('The operation timed out.', 'TimeoutError');
      const started = Date.now();
      controller.abort(reason);
      await expect(run).rejects.toBe(reason);
      expect(Date.now() - started).toBeLessThan(1_000 * crowding());
      await waitUntil(() => processesWith(marker).length === 0, 2_000);
    });

    it('rejects with a timeout signal reason, well before the command would finish', async () => {
      const started = Date.now();
      const run = shell(['sleep'], { sandbox })(
        { command: ['sleep', '30'] },
        createTestContext({ signal: AbortSignal.timeout(200) }),
      );
      await expect(run).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(Date.now() - started).toBeLessThan(2_000 * crowding());
    });

    it('does not start anything when the signal has already fired', async () => {
      const reason = new Error('cancelled');
      const run = shell(['sh'], { sandbox })(
        { command: ['sh', '-c', 'echo ran > ran.txt'] },
        createTestContext({ signal: AbortSignal.abort(reason) }),
      );
      await expect(run).rejects.toBe(reason);
      expect(existsSync(path.join(workspace, 'ran.txt'))).toBe(false);
    });

    it('returns when the program exits, killing background jobs it left holding the output pipe', async () => {
      const started = Date.now();
      const marker = sleepMarker();
      const output = await shell(['sh'], { sandbox })({ command: ['sh', '-c', `sleep ${marker} & echo done`] });
      expect(output).toMatchObject({ stdout: 'done\n', exitCode: 0 });
      expect(Date.now() - started).toBeLessThan(5_000 * crowding());
      await waitUntil(() => processesWith(marker).length === 0, 2_000);
    });
  });

  describe('output cap', () => {
    it('stops a program that floods stdout and reports OUTPUT_LIMIT, not a non-zero exit', async () => {
      const output = await shell(['yes'], { maxOutputBytes: 1000 })({ command: ['yes'] });
      expect(output.stdout.startsWith('y\ny\n')).toBe(true);
      expect(output.stdout).toContain('[... stdout truncated ...]');
      expect(output.stdout.length).toBeLessThan(1100);
      expect(output).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
      expect(output.failure).toMatchObject({
        code: 'OUTPUT_LIMIT',
        kind: 'limit',
        retryable: false,
        message: "stdout passed run_shell's 1000 bytes output limit; the program was stopped and its output cut there.",
        details: { limit: 'maxOutputBytes', bytes: 1000, stream: 'stdout' },
      });
      expect(output.failure?.hint).toMatch(/head -n .*tail -n .*sed -n '1,200p'.*grep -m/);
    });

    it('names the default limit in MiB', async () => {
      const output = await shell(['yes'])({ command: ['yes', 'a long line to fill the megabyte faster'] });
      expect(output.failure?.message).toBe(
        "stdout passed run_shell's 1 MiB output limit; the program was stopped and its output cut there.",
      );
      expect(output.failure?.details).toEqual({ limit: 'maxOutputBytes', bytes: 1024 * 1024, stream: 'stdout' });
    });

    it('caps stderr the same way', async () => {
      const output = await shell(['sh'], { maxOutputBytes: 500 })({ command: ['sh', '-c', 'yes >&2'] });
      expect(output.failure).toMatchObject({ code: 'OUTPUT_LIMIT', details: { stream: 'stderr', bytes: 500 } });
      expect(output.failure?.message).toMatch(/^stderr passed run_shell's 500 bytes output limit/);
      expect(output.exitCode).toBe(137);
    });

    it('keeps output exactly at the cap untouched', async () => {
      const output = await shell(['printf'], { maxOutputBytes: 5 })({ command: ['printf', 'abcde'] });
      expect(output).toMatchObject({ stdout: 'abcde', stderr: '', exitCode: 0 });
      expect(output.failure).toBeUndefined();
    });
  });

  describe('binary output', () => {
    it('leaves a binary stdout out, saying what it was and how long, and keeps stderr as text', async () => {
      await writeFile(
        path.join(workspace, 'image.png'),
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]),
      );
      const output = await shell(['sh'])({ command: ['sh', '-c', 'cat image.png; echo warning >&2'] });
      expect(output).toMatchObject({
        stdout: '[binary stdout left out: PNG image, 11 bytes]',
        stderr: 'warning\n',
        exitCode: 0,
      });
    });

    it('tells binary by a NUL byte anywhere, also after text, on either stream', async () => {
      const output = await shell(['sh'])({
        command: ['sh', '-c', "printf 'header\\n'; sleep 0.1; printf 'a\\000b'; printf 'x\\000y' >&2"],
      });
      expect(output.stdout).toBe('[binary stdout left out: binary data (contains NUL bytes), 10 bytes]');
      expect(output.stderr).toBe('[binary stderr left out: binary data (contains NUL bytes), 3 bytes]');
    });

    it('keeps text with invalid UTF-8 or control characters as text', async () => {
      const output = await shell(['printf'])({ command: ['printf', '\\033[31mred\\033[0m \\377'] });
      expect(output.stdout).toBe('\u001b[31mred\u001b[0m \uFFFD');
    });

    it('bounds a flood of zeros: one line and the truncation mark, not a megabyte of NULs', async () => {
      const output = await shell(['cat'], { maxOutputBytes: 64 * 1024 })({ command: ['cat', '/dev/zero'] });
      expect(output.failure?.code).toBe('OUTPUT_LIMIT');
      // The size is what came before cat was stopped: more on a busy machine.
      expect(output.stdout).toMatch(
        /^\[binary stdout left out: binary data \(contains NUL bytes\), \d+(\.\d)? (KiB|MiB)\]\n\[\.\.\. stdout truncated \.\.\.\]$/,
      );
    });

    it('shows the live view the text before, then one line, then nothing more of that stream', async () => {
      const chunks: { stream: string; text: string }[] = [];
      const context = createTestContext({ output: { write: (stream, text) => chunks.push({ stream, text }) } });
      await shell(['sh'])(
        { command: ['sh', '-c', "printf 'before\\n'; sleep 0.1; printf '\\000\\001'; sleep 0.1; printf 'after'"] },
        context,
      );
      expect(chunks.map((c) => c.text).join('')).toBe(
        'before\n\n[binary stdout left out: binary data (contains NUL bytes)]\n',
      );
      // Binary from its first byte: the line alone.
      await writeFile(
        path.join(workspace, 'image.png'),
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]),
      );
      chunks.length = 0;
      await shell(['cat'])({ command: ['cat', 'image.png'] }, context);
      expect(chunks).toEqual([{ stream: 'stdout', text: '[binary stdout left out: PNG image]\n' }]);
    });
  });

  describe('streamed output', () => {
    function recorder() {
      const chunks: { stream: 'stdout' | 'stderr'; text: string; at: number }[] = [];
      const context = createTestContext({
        output: { write: (stream, text) => chunks.push({ stream, text, at: Date.now() }) },
      });
      const text = (stream: 'stdout' | 'stderr') =>
        chunks
          .filter((c) => c.stream === stream)
          .map((c) => c.text)
          .join('');
      return { chunks, context, text };
    }

    it('reports stdout and stderr as they are produced, before the program ends', async () => {
      // The program goes on only once the test has been told "first" and "oops": it waits (10 s at
      // most) for a file the test writes into the workspace then.
      const go = `go-${process.pid}-${Date.now()}`;
      const told = { stdout: '', stderr: '' };
      const context = createTestContext({
        output: {
          write: (stream, text) => {
            told[stream] += text;
            if (told.stdout.includes('first') && told.stderr.includes('oops') && !existsSync(path.join(workspace, go)))
              writeFileSync(path.join(workspace, go), '');
          },
        },
      });
      const script = `echo first; echo oops >&2; i=0; while [ ! -e ${go} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -e ${go} ] && echo second`;
      const output = await shell(['sh'])({ command: ['sh', '-c', script] }, context);
      expect(output).toMatchObject({ stdout: 'first\nsecond\n', stderr: 'oops\n', exitCode: 0 });
      expect(told).toEqual({ stdout: output.stdout, stderr: 'oops\n' });
    });

    it('never splits a character across chunks', async () => {
      const { chunks, context, text } = recorder();
      // "é" is 2 bytes and "🙂" 4: the writes below cut each in the middle.
      const script = "printf '\\303'; sleep 0.1; printf '\\251\\360\\237'; sleep 0.1; printf '\\231\\202!'";
      const output = await shell(['sh'])({ command: ['sh', '-c', script] }, context);
      expect(output.stdout).toBe('é🙂!');
      expect(text('stdout')).toBe('é🙂!');
      for (const chunk of chunks) expect(chunk.text).not.toContain('\uFFFD');
    });

    it('reports only the bytes within the cap', async () => {
      const { context, text } = recorder();
      const output = await shell(['yes'], { maxOutputBytes: 1000 })({ command: ['yes'] }, context);
      expect(text('stdout')).toBe('y\n'.repeat(500));
      expect(output.failure?.code).toBe('OUTPUT_LIMIT');
    });
  });
});
