import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findSlirp4netns, isExecutable, NETWORK_PRELUDE, networkBwrapArgs, networkProblem } from './sandbox-network';

/** `shell.sandbox` in the config: bubblewrap when it works ("auto"), bubblewrap or nothing, or none. */
export type SandboxSetting = 'auto' | 'bubblewrap' | 'none';

export interface SandboxOptions {
  setting?: SandboxSetting;
  /**
   * `shell.network`: programs reach the network from a network namespace of their own, through
   * slirp4netns, without the host's loopback (default: no network at all).
   */
  network?: boolean;
  /** `shell.allow_unsandboxed`: run programs without a sandbox when none is available (default: refuse them). */
  allowUnsandboxed?: boolean;
  /** Where to look for `bwrap`; default `/usr/bin/bwrap`, then the server's PATH. */
  bwrapPath?: string;
  /** Where to look for `slirp4netns` (with `network`); default `/usr/bin/slirp4netns`, then the server's PATH. */
  slirp4netnsPath?: string;
}

/** How `run_shell` runs programs here: decided once at start, shown in the log and on the tools page. */
export interface ShellSandbox {
  /** What programs run in: a bubblewrap sandbox, or nothing but the workspace as cwd. */
  kind: 'bubblewrap' | 'none';
  /** Whether bubblewrap works on this machine (installed, and user or pid namespaces allowed). */
  available: boolean;
  /**
   * Why `kind` is none (the config says so, bwrap is not installed, or its probe failed, with
   * bwrap's words), or why the sandbox is refused (`shell.network` without slirp4netns).
   */
  reason: string | null;
  /**
   * Programs reach the network (`shell.network`): in the sandbox from a network namespace of
   * their own through slirp4netns (`sandbox-network.ts`), never the host's loopback; without a
   * sandbox, the host's own network.
   */
  network: boolean;
  /**
   * `run_shell` refuses every program: no sandbox and the config does not accept running
   * without one, or `shell.network` and no way to give the sandbox a network of its own.
   */
  refused: boolean;
  /** The `bwrap` binary in use; null without the sandbox. */
  bwrap: string | null;
  /** The slirp4netns that gives the sandbox its network; null without `network` or without the sandbox. */
  slirp4netns: string | null;
  /** Prepended to every command (the sandbox's mounts, or the death-signal launcher); see `sandboxedCommand`. */
  launcher: string[];
  /** Folders the sandbox shows read-only; programs on the PATH are found only there. */
  visibleRoots: string[];
  /**
   * Runs the program beside a watcher of the server's life (`lifelineScript`); the command line
   * expects the read end of a pipe whose only writer is the server as fd 3. Empty without /bin/sh.
   */
  lifeline: string[];
}

/** Read-only system folders the allowlisted programs and their libraries live in (a symlink stays a symlink). */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/**
 * The little of /etc programs need: user and group names (ls -l), the loader's cache, the time
 * zone and Debian's alternatives (awk, editor). Never shadow, ssh, sudoers or the machine's secrets.
 */
const ETC_FILES = [
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/alternatives',
  '/etc/mime.types',
];
/** With `shell.network`: name resolution and the CA certificates. */
const NETWORK_ETC_FILES = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/ssl',
  '/etc/ca-certificates',
];
const SETPRIV = '/usr/bin/setpriv';
const SH = ['/usr/bin/sh', '/bin/sh'].find((file) => isExecutable(file)) ?? null;

/**
 * The server's life as seen from inside: fd 3 is the read end of a pipe only the server writes
 * to (it never does), so reading it returns end-of-file once the server is gone, however it
 * died and even if that was before this line ran. The watcher then kills everything: the whole
 * pid namespace in the sandbox (`kill -1` there reaches nothing outside), the process group
 * without one. Closes the gap of parent-death signals, which bubblewrap arms only after its
 * first milliseconds, and which never fire for a parent already dead when they are armed.
 * The program runs in the foreground (its stdin kept) without fd 3; the shell exits with its status.
 */
function lifelineScript(scope: '-1' | '0'): string {
  return `{ read -r _ <&3; kill -KILL ${scope}; } </dev/null >/dev/null 2>&1 & "$@" 3<&-; exit $?`;
}

const detected = new Map<string, ShellSandbox>();

/**
 * Decides how `run_shell` runs programs, once per setting (the probe spawns bwrap):
 * 1. "none": no sandbox, as configured.
 * 2. Otherwise `bwrap` is looked up and probed by running `true` in the very sandbox programs
 *    get; a missing binary or a failing probe (no user namespaces, a seccomp profile) leaves
 *    no sandbox, with bwrap's own words as the reason.
 * 3. Without a sandbox, programs are refused unless `allowUnsandboxed`; with "bubblewrap" they are
 *    refused whatever it says (the config asked for the sandbox by name).
 * Without a sandbox, programs still start under `setpriv --pdeathsig KILL` where it exists, so
 * the server's death (even SIGKILL) kills the program it started (not what that program started in a new session).
 * @example detectShellSandbox({ setting: 'auto' }).kind // 'bubblewrap' where bwrap works
 */
export function detectShellSandbox(options: SandboxOptions = {}): ShellSandbox {
  const setting = options.setting ?? 'auto';
  const network = options.network ?? false;
  const allowUnsandboxed = options.allowUnsandboxed ?? false;
  const key = JSON.stringify([
    setting,
    network,
    allowUnsandboxed,
    options.bwrapPath ?? null,
    options.slirp4netnsPath ?? null,
  ]);
  const known = detected.get(key);
  if (known) return known;
  const sandbox = probe(setting, network, allowUnsandboxed, options);
  detected.set(key, sandbox);
  return sandbox;
}

function probe(
  setting: SandboxSetting,
  network: boolean,
  allowUnsandboxed: boolean,
  { bwrapPath, slirp4netnsPath }: Pick<SandboxOptions, 'bwrapPath' | 'slirp4netnsPath'>,
): ShellSandbox {
  const unsandboxed = (reason: string, available: boolean): ShellSandbox => ({
    kind: 'none',
    available,
    reason,
    network: true,
    refused: setting === 'bubblewrap' || !allowUnsandboxed,
    bwrap: null,
    slirp4netns: null,
    launcher: isExecutable(SETPRIV) ? [SETPRIV, '--pdeathsig', 'KILL', '--'] : [],
    visibleRoots: ['/'],
    lifeline: SH ? [SH, '-c', lifelineScript('0'), 'toolscope-lifeline'] : [],
  });
  const bwrap = findBwrap(bwrapPath);
  if (setting === 'none') return unsandboxed('the config sets shell.sandbox to "none"', bwrap !== null);
  if (!bwrap) return unsandboxed('bubblewrap (bwrap) is not installed: apt-get install bubblewrap', false);
  const launcher = [bwrap, ...systemMounts(network)];
  const probed = spawnSync(launcher[0] as string, [...launcher.slice(1), '--chdir', '/', '--', 'true'], {
    env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (probed.status !== 0) {
    const said = (probed.stderr || probed.error?.message || `exit ${probed.status}`).trim().split('\n')[0];
    return unsandboxed(`bubblewrap does not work here: ${said}`, false);
  }
  const slirp4netns = network ? findSlirp4netns(slirp4netnsPath) : null;
  // Never the host's network instead: refused, with the reason, until the helper is there.
  const refusal = network ? networkProblem(slirp4netns, SH) : null;
  return {
    kind: 'bubblewrap',
    available: true,
    reason: refusal,
    network,
    refused: refusal !== null,
    bwrap,
    slirp4netns,
    launcher,
    visibleRoots: SYSTEM_ROOTS.filter((root) => fs.existsSync(root)),
    lifeline: SH ? [SH, '-c', lifelineScript('-1'), 'toolscope-lifeline'] : [],
  };
}

/** The devices of the networked sandbox's /dev (bubblewrap's `--dev` set, without devpts). */
const NETWORK_DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty'];

/**
 * The sandbox every program runs in, without the workspace (added per call):
 * - its own user, pid, IPC, UTS, cgroup and network namespaces; the network namespace has only
 *   its own loopback, and with `network` the interface slirp4netns gives it (`sandbox-network.ts`):
 *   the host's loopback, the server's own port included, is unreachable either way;
 * - a fresh /proc of its pid namespace: no other process's environ, cmdline or fds;
 * - an empty root with the system folders read-only, a few files of /etc, a minimal /dev and an empty /tmp;
 * - no capabilities (root outside stays a plain uid 0 inside), a new session (no terminal to
 *   inject input into), and SIGKILL for everything inside when bwrap's parent (the server) dies.
 * With `network`, /dev is built device by device without devpts (no pseudo-terminals): for
 * devpts an unprivileged bubblewrap nests a second user namespace, which slirp4netns, joining
 * the sandbox's as the server's user, could not configure the network namespace from.
 */
function systemMounts(network: boolean): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL'];
  for (const root of SYSTEM_ROOTS) {
    const stats = fs.lstatSync(root, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(root), root);
    else if (stats?.isDirectory()) args.push('--ro-bind', root, root);
  }
  for (const file of network ? [...ETC_FILES, ...NETWORK_ETC_FILES] : ETC_FILES) {
    if (fs.existsSync(file)) args.push('--ro-bind', file, file);
  }
  args.push('--proc', '/proc');
  if (network) {
    args.push('--tmpfs', '/dev');
    for (const device of NETWORK_DEVICES) if (fs.existsSync(device)) args.push('--dev-bind', device, device);
    args.push('--tmpfs', '/dev/shm', '--symlink', '/proc/self/fd', '/dev/fd');
    for (const [fd, name] of ['stdin', 'stdout', 'stderr'].entries())
      args.push('--symlink', `/proc/self/fd/${fd}`, `/dev/${name}`);
  } else {
    args.push('--dev', '/dev');
  }
  args.push('--tmpfs', '/tmp');
  return args;
}

/**
 * The command line that runs `command` (a bare name, found on the child's PATH inside, or an
 * allowed path) in `cwd`: inside the sandbox with only `workspace` writable (at its own path,
 * so paths in output read the same), or under the death-signal launcher without one. With the
 * sandbox's network, the program starts after the network's prelude, and the launch expects
 * `startSandboxNetwork` to be run on it (`usesSandboxNetwork`).
 */
export function sandboxedCommand(
  sandbox: ShellSandbox,
  { workspace, cwd, command }: { workspace: string; cwd: string; command: string[] },
): string[] {
  if (sandbox.kind === 'none') return [...sandbox.launcher, ...sandbox.lifeline, ...command];
  const mounts = [...sandbox.launcher, '--bind', workspace, workspace, '--chdir', cwd];
  if (!usesSandboxNetwork(sandbox)) return [...mounts, '--', ...sandbox.lifeline, ...command];
  return [
    ...mounts,
    ...networkBwrapArgs(),
    '--',
    SH as string,
    '-c',
    NETWORK_PRELUDE,
    'toolscope-network',
    ...sandbox.lifeline,
    ...command,
  ];
}

/** Whether launches in `sandbox` get a network of their own, set up by `startSandboxNetwork` with `sandbox.slirp4netns`. */
export function usesSandboxNetwork(sandbox: ShellSandbox): sandbox is ShellSandbox & { slirp4netns: string } {
  return sandbox.kind === 'bubblewrap' && sandbox.network && !sandbox.refused && sandbox.slirp4netns !== null;
}

/** Whether `folder` (absolute) is inside what the sandbox shows: where programs may be found on the PATH. */
export function isVisibleInSandbox(sandbox: ShellSandbox, folder: string): boolean {
  return sandbox.visibleRoots.some((root) => root === '/' || folder === root || folder.startsWith(`${root}/`));
}

/** One line for the server's log at start: what run_shell runs in, and what that means. */
export function describeShellSandbox(sandbox: ShellSandbox): string {
  if (sandbox.kind === 'bubblewrap' && sandbox.refused) {
    return `run_shell: REFUSED (${sandbox.reason}); install slirp4netns or set shell.network to false`;
  }
  if (sandbox.kind === 'bubblewrap') {
    return `run_shell: programs run in a bubblewrap sandbox (workspace only${sandbox.network ? ", with network through slirp4netns, not the host's loopback" : ', no network'})`;
  }
  return sandbox.refused
    ? `run_shell: NO SANDBOX (${sandbox.reason}); run_shell is refused (set shell.allow_unsandboxed to run programs without one)`
    : `run_shell: NO SANDBOX (${sandbox.reason}); programs run unsandboxed and can read what the server can (shell.allow_unsandboxed)`;
}

function findBwrap(explicit: string | undefined): string | null {
  if (explicit) return isExecutable(explicit) ? explicit : null;
  const candidates = [
    '/usr/bin/bwrap',
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'bwrap')),
  ];
  return candidates.find((candidate) => path.isAbsolute(candidate) && isExecutable(candidate)) ?? null;
}

/** The sandbox as `GET /api/v1/tools` and the tools page show it. */
export interface ShellSandboxJson {
  kind: 'bubblewrap' | 'none';
  /** Whether bubblewrap works on this machine. */
  available: boolean;
  /** Why there is no sandbox, or why it is refused; left out otherwise. */
  reason?: string;
  network: boolean;
  /** What becomes of a run_shell call: run sandboxed, run unsandboxed (the config accepts it), or refused. */
  run_shell: 'sandboxed' | 'unsandboxed' | 'refused';
}

export function shellSandboxJson(sandbox: ShellSandbox): ShellSandboxJson {
  return {
    kind: sandbox.kind,
    available: sandbox.available,
    ...(sandbox.reason ? { reason: sandbox.reason } : {}),
    network: sandbox.network,
    run_shell: sandbox.refused ? 'refused' : sandbox.kind === 'bubblewrap' ? 'sandboxed' : 'unsandboxed',
  };
}
