import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessOutput } from '../executor/process-output';
import { detectShellSandbox } from '../tools/process-sandbox';
import { createRunShellTool, type RunShellInput, type RunShellOptions } from '../tools/run-shell';
import { createTempDir, createTestContext, expectToolError } from '../tools/test-helpers';
import { crowding } from './testing/machine-pace';
import { processesWith, sleepMarker, waitUntil } from './testing/processes';

// Attacks on run_shell: what a model (or a prompt injected into what it reads) could try with
// an allowlisted program. Each runs the real tool, in the sandbox it runs in on this machine.
const SECRET = `sk-toolscope-attack-${Math.random().toString(36).slice(2)}`;
const sandbox = detectShellSandbox();
let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
/** A file beside the workspace, as ~/.ssh or the data folder would be: must stay unreadable. */
let outsideFile: string;

beforeAll(async () => {
  // A secret in the server's own environment, as an API key would be.
  process.env.TOOLSCOPE_ATTACK_SECRET = SECRET;
  temp = await createTempDir('toolscope-attacks-shell-');
  const root = await realpath(temp.dir);
  workspace = path.join(root, 'ws');
  await mkdir(path.join(workspace, 'bin'), { recursive: true });
  await writeFile(path.join(workspace, 'notes.txt'), 'inside\n');
  outsideFile = path.join(root, 'outside-secret.txt');
  await writeFile(outsideFile, `${SECRET}\n`);
});

afterAll(async () => {
  delete process.env.TOOLSCOPE_ATTACK_SECRET;
  await temp.remove();
});

function shell(allow: string[], extra: Partial<RunShellOptions> = {}) {
  const tool = createRunShellTool({ workspace, allow, ...extra });
  return {
    tool,
    run: async (input: RunShellInput, context = createTestContext()): Promise<ProcessOutput> =>
      tool.execute(input, context),
  };
}

/** How many `sleep <marker>` processes run (the sandbox's own command line names the marker too). */
const sleepers = (marker: string) => processesWith(marker).filter(({ cmdline }) => cmdline.startsWith('sleep ')).length;

/** Output of a command that tries to read something it must not: whatever it says, never the secret. */
async function attempt(allow: string[], command: string[]): Promise<ProcessOutput> {
  const output = await shell(allow).run({ command });
  expect(output.stdout + output.stderr).not.toContain(SECRET);
  return output;
}

describe('run_shell attacks', () => {
  it('runs in the bubblewrap sandbox on this machine (npm test installs bubblewrap)', () => {
    expect(sandbox).toMatchObject({ kind: 'bubblewrap', available: true, refused: false });
  });

  describe('shell metacharacters are literal arguments', () => {
    it('passes $(...), backticks, ;, |, &&, > and globs to echo untouched, creating nothing', async () => {
      const args = ['$(id)', '`id`', '; cat /etc/passwd', '| cat', '&& touch pwned', '> pwned', '*', '$HOME', '~'];
      const output = await shell(['echo']).run({ command: ['echo', ...args] });
      expect(output.stdout).toBe(`${args.join(' ')}\n`);
      expect(existsSync(path.join(workspace, 'pwned'))).toBe(false);
    });

    it('does not run "sh -c" given inside an allowed program\'s arguments', async () => {
      const output = await shell(['echo']).run({ command: ['echo', 'sh', '-c', 'touch pwned'] });
      expect(output.stdout).toBe('sh -c touch pwned\n');
      expect(existsSync(path.join(workspace, 'pwned'))).toBe(false);
    });
  });

  describe('programs that are not allowlisted, in every spelling', () => {
    const spellings: [string, string][] = [
      ['an absolute path to an allowed program', '/usr/bin/cat'],
      ['an absolute path to a shell', '/bin/sh'],
      ['a relative path', './cat'],
      ['a path up out of the workspace', '../cat'],
      ['a folder path', 'bin/cat'],
      ['env as a launcher', 'env'],
      ['a whole command line as the program', 'sh -c id'],
      ['a shell', 'sh'],
      ['upper case', 'CAT'],
      ['mixed case', 'Cat'],
      ['a trailing space', 'cat '],
      ['a leading space', ' cat'],
      ['a trailing tab', 'cat\t'],
      ['a trailing newline', 'cat\n'],
      ['a Cyrillic а lookalike', 'c\u0430t'],
      ['fullwidth letters', '\uff43\uff41\uff54'],
      ['a zero-width space', 'cat\u200b'],
      ['a combining mark', 'cat\u0301'],
      ['a trailing slash', 'cat/'],
      ['a dot', '.'],
    ];
    it.each(spellings)('refuses %s (%j) at the permission stage and in execute', async (_, program) => {
      const { tool, run } = shell(['cat', 'echo']);
      expect(tool.checkPermission?.({ command: [program, 'notes.txt'] })).toMatchObject({ check: 'shell allowlist' });
      const error = await expectToolError(run({ command: [program, 'notes.txt'] }));
      expect(error).toMatchObject({ code: 'PERMISSION_DENIED', kind: 'permission', retryable: false });
    });

    it('refuses a NUL byte in the program name or an argument', async () => {
      const { run } = shell(['cat']);
      expect((await expectToolError(run({ command: ['cat\0', 'notes.txt'] }))).code).toMatch(
        /^(PERMISSION_DENIED|INVALID_COMMAND)$/,
      );
      expect((await expectToolError(run({ command: ['cat', 'notes.txt\0/etc/passwd'] }))).code).toBe('INVALID_COMMAND');
    });
  });

  describe('PATH hijack from the workspace', () => {
    it('runs the system cat, not a "cat" script planted in the workspace, whatever PATH says', async () => {
      const script = '#!/bin/sh\necho hijacked > hijacked.txt\necho hijacked\n';
      await writeFile(path.join(workspace, 'cat'), script, { mode: 0o755 });
      await writeFile(path.join(workspace, 'bin', 'cat'), script, { mode: 0o755 });
      for (const searchPath of ['.:/usr/bin:/bin', `bin:/usr/bin`, `${workspace}/bin:/usr/bin:/bin`, '']) {
        const output = await shell(['cat'], { path: searchPath || undefined }).run({ command: ['cat', 'notes.txt'] });
        expect(output.stdout).toBe('inside\n');
      }
      const fromBin = await shell(['cat'], { path: '.:/usr/bin' }).run({
        command: ['cat', '../notes.txt'],
        cwd: 'bin',
      });
      expect(fromBin.stdout).toBe('inside\n');
      expect(existsSync(path.join(workspace, 'hijacked.txt'))).toBe(false);
      expect(existsSync(path.join(workspace, 'bin', 'hijacked.txt'))).toBe(false);
    });
  });

  describe("the server's secrets", () => {
    it('gives the program none of the environment (env prints only the scrubbed variables)', async () => {
      const output = await attempt(['env'], ['env']);
      expect(output.stdout).not.toMatch(/^TOOLSCOPE_/m);
    });

    it.each([
      ['its own', '/proc/self/environ'],
      ["its namespace's init (bwrap)", '/proc/1/environ'],
      ['the server process, by its pid', () => `/proc/${process.pid}/environ`],
      ["the server's parent, by its pid", () => `/proc/${process.ppid}/environ`],
    ])('cannot read the environ of %s', async (_, file) => {
      const target = typeof file === 'function' ? file() : file;
      await attempt(['cat'], ['cat', target]);
      // An environ is NUL-separated, which run_shell leaves out as binary: read as text too, so
      // that a readable one would show its secret here.
      await attempt(['sed'], ['sed', 's/\\x0/\\n/g', target]);
    });

    it("cannot read its parent's environ through $PPID, nor walk /proc for the server", async () => {
      const asText = "sed 's/\\x0/\\n/g'";
      await attempt(
        ['sh'],
        ['sh', '-c', `${asText} /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do ${asText} "$f"; done`],
      );
      const listing = await attempt(['ls'], ['ls', '/proc']);
      const pids = listing.stdout.split('\n').filter((name) => /^\d+$/.test(name));
      // A pid namespace of its own: only bwrap's init and the program, never the server.
      expect(pids.map(Number).every((pid) => pid < 10)).toBe(true);
      expect(pids).not.toContain(String(process.pid));
    });

    it('cannot read a file outside the workspace, by absolute path, ../ or a symlink', async () => {
      await symlink(outsideFile, path.join(workspace, 'link-out'));
      for (const target of [outsideFile, '../outside-secret.txt', 'link-out']) {
        const output = await attempt(['cat'], ['cat', target]);
        expect(output.exitCode).not.toBe(0);
      }
    });

    it('cannot read ~/.ssh, /root, /home or /etc/shadow', async () => {
      for (const target of [path.join(os.homedir(), '.ssh', 'id_ed25519'), '/etc/shadow', '/etc/sudoers']) {
        const output = await attempt(['cat'], ['cat', target]);
        expect(output.stderr).toMatch(/No such file or directory/);
      }
      const listing = await attempt(['ls'], ['ls', '-a', os.homedir(), '/root', '/home']);
      expect(listing.exitCode).not.toBe(0);
      expect(listing.stdout).toBe('');
    });

    it('sees only a few files of /etc, none of them secret', async () => {
      const output = await attempt(['ls'], ['ls', '/etc']);
      const files = output.stdout.trim().split('\n');
      expect(files).not.toContain('shadow');
      expect(files).not.toContain('ssh');
      expect(
        files.every((name) =>
          /^(passwd|group|nsswitch\.conf|ld\.so\..*|localtime|timezone|alternatives|mime\.types)$/.test(name),
        ),
      ).toBe(true);
    });

    it('cannot write outside the workspace: the system folders are read-only, /tmp is its own', async () => {
      const output = await attempt(
        ['sh'],
        [
          'sh',
          '-c',
          `touch /usr/bin/pwned; touch /etc/pwned; echo x > ${path.dirname(workspace)}/pwned; echo ok > /tmp/own; cat /tmp/own`,
        ],
      );
      expect(output.stdout).toBe('ok\n');
      expect(existsSync('/usr/bin/pwned')).toBe(false);
      expect(existsSync(path.join(path.dirname(workspace), 'pwned'))).toBe(false);
      expect(existsSync('/tmp/own')).toBe(false);
    });

    it('has no capabilities, even when the server runs as root', async () => {
      const output = await attempt(['grep'], ['grep', '^CapEff', '/proc/self/status']);
      expect(output.stdout).toMatch(/^CapEff:\s+0+$/m);
    });

    it('cannot reach the network, the server on loopback included', async () => {
      const server = net.createServer((socket) => socket.end('hello from the host\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as net.AddressInfo;
      try {
        const output = await attempt(['bash'], ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`]);
        expect(output.exitCode).not.toBe(0);
        expect(output.stdout).not.toContain('hello from the host');
      } finally {
        server.close();
      }
    });
  });

  describe('output floods', () => {
    it('stops yes at the cap and marks stdout truncated', async () => {
      const started = Date.now();
      const output = await shell(['yes'], { maxOutputBytes: 4096 }).run({ command: ['yes', 'flood'] });
      expect(output.stdout.length).toBeLessThan(4096 + 64);
      expect(output.stdout).toMatch(/\[\.\.\. stdout truncated \.\.\.\]$/);
      expect(output.failure).toMatchObject({ code: 'OUTPUT_LIMIT' });
      expect(Date.now() - started).toBeLessThan(5_000 * crowding());
    });

    it('stops a flood on stderr, and one of binary zeros, the same way', async () => {
      const stderr = await shell(['sh'], { maxOutputBytes: 4096 }).run({ command: ['sh', '-c', 'yes flood >&2'] });
      expect(stderr.stderr).toMatch(/\[\.\.\. stderr truncated \.\.\.\]$/);
      expect(stderr.stderr.length).toBeLessThan(4096 + 64);
      const zeros = await shell(['cat'], { maxOutputBytes: 4096 }).run({ command: ['cat', '/dev/zero'] });
      expect(zeros.failure).toMatchObject({ code: 'OUTPUT_LIMIT' });
      expect(zeros.stdout.length).toBeLessThan(4096 + 64);
    });

    it('leaves nothing running after a flood from background jobs', async () => {
      const marker = sleepMarker();
      const output = await shell(['sh'], { maxOutputBytes: 4096 }).run({
        command: ['sh', '-c', `sleep ${marker} & yes & yes >&2 & wait`],
      });
      expect(output.failure).toMatchObject({ code: 'OUTPUT_LIMIT' });
      await waitUntil(() => processesWith(marker).length === 0, 1_000);
    });
  });

  describe('escaping the kill', () => {
    it.each([
      ['setsid', (marker: string) => `setsid sleep ${marker} & sleep ${marker}`],
      ['setsid -f (a daemon)', (marker: string) => `setsid -f sleep ${marker}; sleep ${marker}`],
      ['nohup in a subshell', (marker: string) => `(nohup sleep ${marker} >/dev/null 2>&1 &); sleep ${marker}`],
    ])('a child that leaves the session with %s dies on timeout, within 100 ms', async (_, script) => {
      const marker = sleepMarker();
      // The call's timeout fires once both sleepers run: its signal aborts with the TimeoutError
      // that `AbortSignal.timeout` gives.
      const timeout = new AbortController();
      const run = shell(['sh']).run(
        { command: ['sh', '-c', script(marker)] },
        createTestContext({ signal: timeout.signal }),
      );
      await waitUntil(() => sleepers(marker) === 2);
      const abortedAt = performance.now();
      timeout.abort(new DOMException('The operation timed out.', 'TimeoutError'));
      await expect(run).rejects.toMatchObject({ name: 'TimeoutError' });
      await waitUntil(() => processesWith(marker).length === 0, 1_000);
      // Within 100 ms on the reference machine at rest, stretched by the machine's crowding.
      expect(performance.now() - abortedAt).toBeLessThan(100 * crowding());
    });

    it('a daemon left behind by a program that exited is killed with it', async () => {
      const marker = sleepMarker();
      const output = await shell(['setsid']).run({ command: ['setsid', '-f', 'sleep', marker] });
      expect(output.exitCode).toBe(0);
      await waitUntil(() => processesWith(marker).length === 0, 1_000);
    });

    it('a cancelled call leaves nothing running, setsid children included', async () => {
      const marker = sleepMarker();
      const controller = new AbortController();
      const run = shell(['sh']).run(
        { command: ['sh', '-c', `setsid sleep ${marker} & sleep ${marker}`] },
        createTestContext({ signal: controller.signal }),
      );
      await waitUntil(() => sleepers(marker) === 2);
      controller.abort(new Error('cancelled by the user'));
      await expect(run).rejects.toThrow('cancelled by the user');
      await waitUntil(() => processesWith(marker).length === 0, 100);
    });

    it.each([
      ['in the sandbox', 'auto'],
      ['without a sandbox (setpriv --pdeathsig and the lifeline)', 'none'],
    ])(
      "a server killed with SIGKILL at any moment of a program's start takes it along, %s",
      async (_, setting) => {
        // From the first sign of the launch (bwrap's own start, when parent-death signals are not
        // armed yet) to a program long running.
        for (const delayMs of [0, 2, 5, 10, 100]) {
          const marker = sleepMarker();
          const host = spawn(
            process.execPath,
            ['--import', 'tsx', path.join(__dirname, 'testing', 'run-shell-host.ts'), workspace, setting, marker],
            { stdio: ['ignore', 'ignore', 'inherit'] },
          );
          const launched = () => processesWith(marker).filter(({ pid }) => pid !== host.pid);
          try {
            await waitUntil(() => launched().length > 0, 20_000);
            await new Promise((resolve) => setTimeout(resolve, delayMs));
            host.kill('SIGKILL');
            await waitUntil(() => launched().length === 0, 1_000).catch(() => {
              throw new Error(`killed ${delayMs} ms into the launch, still running: ${JSON.stringify(launched())}`);
            });
          } finally {
            host.kill('SIGKILL');
          }
        }
      },
      120_000,
    );
  });
});
