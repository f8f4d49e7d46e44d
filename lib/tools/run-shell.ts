import type { ChildProcess } from 'node:child_process';
import { promises as fs, constants as fsConstants } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ZodTool } from '../executor/define-tool';
import { errorData, ToolError } from '../executor/errors';
import { type ProcessOutput, processOutput } from '../executor/process-output';
import type { PermissionRefusal } from '../executor/types';
import { createCommandSubject } from '../policy/command-subject';
import { settingSource } from './config-source';
import { fileError } from './file-errors';
import { formatBytes } from './format-bytes';
import { runShellDescriber } from './previews';
import {
  detectShellSandbox,
  isVisibleInSandbox,
  type ShellSandbox,
  sandboxedCommand,
  usesSandboxNetwork,
} from './process-sandbox';
import { runProcessGroup } from './run-process-group';
import { isInside, resolveInWorkspace } from './sandbox';
import { NETWORK_PIPES, startSandboxNetwork } from './sandbox-network';

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_SHELL_TIMEOUT_MS = 30_000;
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface RunShellOptions {
  /** Default working folder and the boundary for `cwd`; also the child's HOME. */
  workspace: string;
  /** Programs the model may run, by bare name ("git", "ls"). An entry with "/" allows exactly that path. */
  allow: string[];
  /** Cap per stream (stdout, stderr). Default 1 MiB. */
  maxOutputBytes?: number;
  timeoutMs?: number;
  /** PATH given to the child. Default: the server's PATH, without relative or workspace entries. */
  path?: string;
  /** Extra variables for every child: settings, never secrets (the output reaches the model). */
  env?: Record<string, string>;
  /** The config file that set `allow`, named in refusals; null when the defaults are in use. */
  configFile?: string | null;
  /** What programs run in (`detectShellSandbox`); default: bubblewrap where it works, else refused. */
  sandbox?: ShellSandbox;
}

const inputSchema = z.object({
  command: z
    .array(z.string())
    .min(1)
    .describe(
      'The program and its arguments as separate strings, e.g. ["ls", "-la", "src"]. No shell: pipes, ' +
        'redirections, globs, $VARS and ";" are passed literally as arguments.',
    ),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe('Working folder relative to the workspace, e.g. "src". Default: the workspace folder.'),
  stdin: z.string().max(DEFAULT_MAX_OUTPUT_BYTES).optional().describe('Text sent to the program on standard input.'),
});

export type RunShellInput = z.infer<typeof inputSchema>;

/**
 * The `run_shell` tool: runs one allowlisted program with arguments, no shell in between.
 *
 * 1. `command[0]` must be in the allowlist, by bare name (a path such as "/bin/echo" or "./x"
 *    only when listed exactly as such). `checkPermission` refuses others at the permission stage,
 *    naming the config file; `execute` checks again, in case it is called without that stage.
 * 2. `cwd` is resolved inside the workspace like a file path.
 * 3. The child gets a scrubbed environment: PATH, HOME (the workspace), locale, TERM and the
 *    configured extras; nothing of the server's own environment (API keys, tokens).
 * 4. It runs in the sandbox (`process-sandbox.ts`: bubblewrap, seeing only the workspace and the
 *    system's read-only folders, in pid and network namespaces of its own, killed with the
 *    server), in its own process group, killed whole on timeout or cancel (`runProcessGroup`).
 *    With `shell.network` its network namespace gets outbound access through slirp4netns
 *    before the program starts, never the host's loopback (`sandbox-network.ts`).
 *    Without a sandbox every program is refused, unless the config accepts the risk.
 * 5. Output is streamed to `ctx.output` as it arrives (live views), up to the cap.
 * 6. The result is `processOutput`: the executor turns a non-zero exit into NON_ZERO_EXIT, and
 *    output past the cap into OUTPUT_LIMIT (`failure`), keeping what was printed.
 *
 * Allowlisting a program allows everything it can do: `sh`, `env`, `xargs`, `find -exec`
 * or `git -c` run arbitrary commands. List only what the agent needs.
 * @example createRunShellTool({ workspace: '/srv/ws', allow: ['ls'] }).execute({ command: ['ls'] }, ctx)
 */
export function createRunShellTool(options: RunShellOptions): ZodTool<RunShellInput, ProcessOutput> {
  const allow: ReadonlySet<string> = new Set(options.allow);
  const sandbox = options.sandbox ?? detectShellSandbox();
  // Run through bwrap or the lifeline's shell, which look the program up on the PATH themselves.
  const wrapped = sandbox.launcher.length > 0 || sandbox.lifeline.length > 0;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const allowed = options.allow.length > 0 ? options.allow.join(', ') : 'none (ask the user to allow some)';
  const slirp4netns = usesSandboxNetwork(sandbox) ? sandbox.slirp4netns : null;
  const attach = slirp4netns
    ? { pipes: NETWORK_PIPES, start: (child: ChildProcess) => startSandboxNetwork(child, slirp4netns) }
    : undefined;
  return defineTool({
    name: 'run_shell',
    description: [
      'Run a program in the workspace folder and return its stdout, stderr and exit code.',
      `Allowed programs: ${allowed}.`,
      'Give the program and each argument as separate strings; there is no shell, so pipes, redirections,',
      'globs and variables do not work. Output over',
      `${formatBytes(maxOutputBytes)} per stream stops the program (OUTPUT_LIMIT): ask for less, e.g. head -n 200 FILE.`,
      'A non-zero exit code is reported as an error. Binary output (NUL bytes) is left out, with a line saying so.',
      ...(sandbox.kind === 'bubblewrap'
        ? [
            `Programs run in a sandbox: they see only the workspace and the system's programs${sandbox.network ? ", and reach the network but not this machine's loopback" : ', with no network'}.`,
          ]
        : []),
    ].join(' '),
    inputSchema,
    sideEffect: 'exec',
    permissionSubject: createCommandSubject(),
    describe: runShellDescriber,
    timeoutMs: options.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
    // Commands may change things; running one twice is the model's decision, not ours.
    retry: { maxAttempts: 1 },
    checkPermission: ({ command }) =>
      sandboxRefusal(sandbox, options.configFile) ??
      allowlistRefusal(command[0] ?? '', allow, allowed, options.configFile),
    async execute({ command, cwd = '.', stdin }, ctx) {
      const [program = '', ...args] = command;
      checkCommand(command);
      const refusal =
        sandboxRefusal(sandbox, options.configFile) ?? allowlistRefusal(program, allow, allowed, options.configFile);
      if (refusal) throw refusalError(refusal);
      const directory = await resolveCwd(options.workspace, cwd);
      const env = childEnv(directory.root, directory.absolute, options, sandbox);
      const located = await locateProgram(program, env.PATH ?? '', {
        cwd: directory.absolute,
        root: directory.root,
        sandbox,
        wrapped,
      });
      // A bare name is looked up again inside, on the same PATH, so the program sees it as argv[0].
      const [launcher = located, ...launched] = sandboxedCommand(sandbox, {
        workspace: directory.root,
        cwd: directory.absolute,
        command: [wrapped ? program : located, ...args],
      });
      const result = await runProcessGroup({
        program: launcher,
        argv0: wrapped ? undefined : program,
        lifeline: sandbox.lifeline.length > 0,
        attach,
        name: program,
        args: launched,
        cwd: directory.absolute,
        env,
        stdin,
        maxOutputBytes,
        signal: ctx.signal,
        onOutput: (stream, text) => ctx.output.write(stream, text),
      });
      return processOutput({
        stdout: result.stdout,
        stderr: result.stderr,
        exitCode: result.exitCode,
        signal: result.signal ?? (wrapped ? signalOfSandboxed(result.exitCode) : null),
        ...(result.outputLimitHit ? { failure: outputLimitError(result.outputLimitHit, maxOutputBytes) } : {}),
      });
    },
  });
}

/**
 * Output past the cap is Toolscope's limit, not the program's failure: the error says which
 * stream passed which limit, and how to ask for less (there is no shell, so no `| head`).
 */
function outputLimitError(stream: 'stdout' | 'stderr', maxOutputBytes: number) {
  return errorData(
    'OUTPUT_LIMIT',
    `${stream} passed run_shell's ${formatBytes(maxOutputBytes)} output limit; the program was stopped and its output cut there.`,
    {
      kind: 'limit',
      retryable: false,
      hint:
        'Ask for less output: narrow the command (a path, a filter, a count such as git log -n 20), or page ' +
        "a file with head -n 200, tail -n 200, sed -n '1,200p' or grep -m 50 PATTERN (if allowed). There is " +
        'no shell, so pipes such as "| head" do not work.',
      details: { limit: 'maxOutputBytes', bytes: maxOutputBytes, stream },
    },
  );
}

function checkCommand(command: string[]): void {
  if (command[0] === '') throw ToolError.parameter('INVALID_COMMAND', 'The program name (command[0]) is empty.');
  if (command.some((arg) => arg.includes('\0'))) {
    throw ToolError.parameter('INVALID_COMMAND', 'Arguments cannot contain NUL bytes.');
  }
}

/**
 * The shell allowlist's verdict on a program. An empty name is left to `execute`, which reports
 * it as an invalid command rather than as a program that is not allowed.
 */
function allowlistRefusal(
  program: string,
  allow: ReadonlySet<string>,
  allowed: string,
  configFile: string | null | undefined,
): PermissionRefusal | null {
  if (program === '' || allow.has(program)) return null;
  const source = settingSource('shell.allow', configFile);
  const message = program.includes('/')
    ? `"${program}" is a path, and only bare names of allowed programs may run (${source}). Allowed: ${allowed}.`
    : `"${program}" is not on the shell allowlist (${source}). Allowed: ${allowed}.`;
  return {
    check: 'shell allowlist',
    message,
    hint: program.includes('/')
      ? 'Call the program by its bare name if it is allowed; do not retry this path.'
      : 'Do not retry this program; use an allowed one, or ask the user to add it to the shell allowlist.',
    details: { program, allow: [...allow], configFile: configFile ?? null },
  };
}

/**
 * No sandbox and the config does not accept running programs without one, or `shell.network`
 * without a network of the sandbox's own: every command is refused.
 */
function sandboxRefusal(sandbox: ShellSandbox, configFile: string | null | undefined): PermissionRefusal | null {
  if (!sandbox.refused) return null;
  const file = configFile ?? 'toolscope.config.json';
  if (sandbox.kind === 'bubblewrap') {
    return {
      check: 'shell sandbox',
      message: `run_shell is off: ${sandbox.reason}.`,
      hint:
        'Do not retry: no command can run until the user installs slirp4netns (apt-get install slirp4netns) ' +
        `or turns the network off (shell.network in ${file}).`,
      details: { sandbox: sandbox.kind, network: true, reason: sandbox.reason, configFile: configFile ?? null },
    };
  }
  return {
    check: 'shell sandbox',
    message: `run_shell is off: there is no sandbox to run programs in (${sandbox.reason}).`,
    hint:
      'Do not retry: no command can run until the user installs bubblewrap (apt-get install bubblewrap) or ' +
      `accepts running programs unsandboxed (shell.allow_unsandboxed in ${file}).`,
    details: { sandbox: sandbox.kind, reason: sandbox.reason, configFile: configFile ?? null },
  };
}

function refusalError({ check, message, hint, details }: PermissionRefusal): ToolError {
  return new ToolError({
    code: 'PERMISSION_DENIED',
    kind: 'permission',
    message,
    hint,
    details: { ...details, check },
  });
}

/**
 * Finds a bare program name on the child's PATH, as execvp would, so that "not installed" is
 * told apart from "not executable" (execvp reports EACCES for both when a PATH folder is
 * unreadable). A name with "/" (allowed exactly) must be an executable file, where the sandbox
 * shows it (the system folders or the workspace); started directly, it is left to the kernel.
 */
async function locateProgram(
  program: string,
  searchPath: string,
  { cwd, root, sandbox, wrapped }: { cwd: string; root: string; sandbox: ShellSandbox; wrapped: boolean },
): Promise<string> {
  if (program.includes('/')) {
    if (!wrapped) return program;
    const absolute = path.resolve(cwd, program);
    const visible = sandbox.kind === 'none' || isVisibleInSandbox(sandbox, absolute) || isInside(root, absolute);
    if (visible && (await isExecutableFile(absolute))) return program;
  } else {
    for (const folder of searchPath.split(path.delimiter)) {
      const candidate = path.join(folder, program);
      if (await isExecutableFile(candidate)) return candidate;
    }
  }
  throw ToolError.parameter('PROGRAM_NOT_FOUND', `"${program}" is not installed or not on the PATH.`, {
    hint:
      sandbox.kind === 'none'
        ? 'Use another program from the allowed list.'
        : 'Use another program from the allowed list (the sandbox shows programs under /usr, /bin and /sbin only).',
  });
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await fs.access(file, fsConstants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    // Not here (or not ours to run).
    return false;
  }
}

/**
 * bubblewrap's init and the lifeline's shell exit with 128 + n when the program is killed by
 * signal n (as shells report it): the signal is read back from that code. A program that exits
 * 143 by itself reads as killed by SIGTERM, as it would in a shell.
 */
function signalOfSandboxed(exitCode: number): NodeJS.Signals | null {
  const number = exitCode - 128;
  if (number < 1 || number > 64) return null;
  const name = Object.entries(osConstants.signals).find(([, value]) => value === number)?.[0];
  return (name as NodeJS.Signals | undefined) ?? null;
}

async function resolveCwd(workspace: string, cwd: string) {
  const directory = await resolveInWorkspace(workspace, cwd);
  if (!directory.exists) {
    throw ToolError.parameter('CWD_NOT_FOUND', `The folder "${directory.relative}" does not exist in the workspace.`);
  }
  const stats = await fs.stat(directory.absolute).catch((error: unknown) => {
    throw fileError(error, directory.relative);
  });
  if (!stats.isDirectory()) {
    throw ToolError.parameter('NOT_A_DIRECTORY', `"${directory.relative}" is a file; cwd must be a folder.`);
  }
  return directory;
}

function childEnv(root: string, cwd: string, options: RunShellOptions, sandbox: ShellSandbox): Record<string, string> {
  return {
    ...options.env,
    PATH: safePath(options.path ?? process.env.PATH ?? FALLBACK_PATH, root, sandbox),
    HOME: root,
    PWD: cwd,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
  };
}

/**
 * Keeps absolute PATH entries outside the workspace: with the workspace as cwd, a relative
 * entry (".", "bin") or one inside it would run a program the model wrote under an allowed name.
 * In the sandbox, only entries it shows (the system folders) are kept.
 */
function safePath(value: string, root: string, sandbox: ShellSandbox): string {
  const entries = value
    .split(path.delimiter)
    .filter(
      (entry) =>
        path.isAbsolute(entry) &&
        !isInside(root, path.resolve(entry)) &&
        isVisibleInSandbox(sandbox, path.resolve(entry)),
    );
  return [...new Set(entries)].join(path.delimiter);
}
