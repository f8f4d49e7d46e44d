import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Duplex, Readable, Writable } from 'node:stream';
import { ToolError } from '../executor/errors';

/**
 * The sandbox's network with `shell.network`: a network namespace of its own (bubblewrap's
 * `--unshare-net`), given outbound access by slirp4netns, a user-mode TCP/IP stack that turns the
 * sandbox's packets into ordinary sockets of the server's user:
 * - `--disable-host-loopback`: the gateway (10.0.2.2) does not lead to the host's 127.0.0.1,
 *   and the sandbox's own 127.0.0.1 is its own loopback, so no port on the host's loopback
 *   (Toolscope's API, a local database) can be reached; the DNS forwarder at 10.0.2.3 takes
 *   port 53 only;
 * - the sandbox's /etc/resolv.conf names slirp's DNS forwarder, 10.0.2.3;
 * - no IPv6.
 *
 * The file descriptors of a networked launch, beside 0-2 and the lifeline's 3:
 * 4 bubblewrap's `--info-fd` (its JSON names the sandbox's first process, whose namespaces
 * slirp4netns joins), 5 the handshake (the sandbox says "up" once its namespaces are set up and
 * waits for "go"; `NETWORK_PRELUDE`), 6 the sandbox's resolv.conf (`--ro-bind-data`).
 */
export const NETWORK_PIPES = 3;
const INFO_FD = 4;
const HANDSHAKE_FD = 5;
const RESOLV_FD = 6;
const RESOLV_CONF = 'nameserver 10.0.2.3\n';
/** How much of slirp4netns's stderr is kept for an error message. */
const MAX_HELPER_WORDS = 4096;

/** Where slirp4netns is looked for: `/usr/bin`, then the server's PATH. */
export function findSlirp4netns(explicit?: string): string | null {
  const candidates = explicit
    ? [explicit]
    : [
        '/usr/bin/slirp4netns',
        ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'slirp4netns')),
      ];
  return candidates.find((candidate) => path.isAbsolute(candidate) && isExecutable(candidate)) ?? null;
}

/**
 * Why a networked sandbox cannot be set up here, or null when it can: slirp4netns must be
 * installed, /dev/net/tun usable by the server's user (slirp4netns opens it inside the sandbox's
 * namespace), and /bin/sh there for the handshake.
 */
export function networkProblem(slirp4netns: string | null, sh: string | null): string | null {
  if (!slirp4netns) {
    return (
      'shell.network is on, but slirp4netns is not installed (apt-get install slirp4netns): without it ' +
      "programs would share the host's network, Toolscope's own port included"
    );
  }
  try {
    fs.accessSync('/dev/net/tun', fs.constants.R_OK | fs.constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return `shell.network is on, but /dev/net/tun is not usable by this user (${code}), and slirp4netns needs it`;
  }
  if (!sh) return 'shell.network is on, but there is no /bin/sh for the sandbox to wait for its network with';
  return null;
}

/**
 * The bubblewrap arguments of a networked launch, after the system mounts: the info fd and the
 * resolv.conf naming slirp's DNS forwarder.
 */
export function networkBwrapArgs(): string[] {
  return ['--info-fd', String(INFO_FD), '--ro-bind-data', String(RESOLV_FD), '/etc/resolv.conf'];
}

/**
 * Run first inside the sandbox, before the program: says "up" on the handshake fd (by then
 * bubblewrap has set up every namespace, the loopback included, so slirp4netns configures its
 * interface without racing it), waits for "go" (the network is up), closes the fd and runs the
 * rest of its arguments. End-of-file instead of "go" (the server gone, or the setup failed)
 * ends it before the program starts.
 */
export const NETWORK_PRELUDE = `echo up >&${HANDSHAKE_FD} && read -r _ <&${HANDSHAKE_FD} || exit 125; exec ${HANDSHAKE_FD}<&-; exec "$@"`;

/**
 * Gives a sandbox just launched (`child`: bwrap with `networkBwrapArgs` and the prelude, its
 * fds 4-6 pipes) its network, then lets its program start:
 * 1. writes the sandbox's resolv.conf to fd 6;
 * 2. reads the sandbox's first pid from bubblewrap's info (fd 4) and waits for the prelude's "up" (fd 5);
 * 3. starts slirp4netns on that pid (`--configure --disable-host-loopback`; sandboxed and under
 *    seccomp when the server runs as root, where it could otherwise do anything), with an exit
 *    fd only the server holds, so it also ends when the server dies;
 * 4. once slirp4netns says ready, writes "go" to the prelude.
 * Resolves to what stops slirp4netns (SIGKILL, by pid), to be called once the sandbox is done;
 * rejects with `SANDBOX_NETWORK_FAILED` when slirp4netns fails before it is ready (the caller
 * kills the sandbox, whose program never started). A sandbox that ends during the setup
 * (bubblewrap failed, or was killed) resolves it with nothing left to stop.
 */
export function startSandboxNetwork(child: ChildProcess, slirp4netns: string): Promise<() => void> {
  const stdio = child.stdio as unknown as (Duplex | null)[];
  const info = stdio[INFO_FD] as Readable;
  const handshake = stdio[HANDSHAKE_FD] as Duplex;
  const resolv = stdio[RESOLV_FD] as Writable;
  for (const stream of [info, handshake, resolv]) stream.on('error', () => {});
  resolv.end(RESOLV_CONF);

  return new Promise((resolve, reject) => {
    let infoText = '';
    let heard = '';
    let pid: number | null = null;
    let up = false;
    let helper: ChildProcess | null = null;
    let said = '';
    let finished = false;

    const stop = () => {
      if (!helper) return;
      if (helper.exitCode === null && helper.signalCode === null) helper.kill('SIGKILL');
      // Its exit fd too: what is left of slirp4netns (a child it forked) reads end-of-file.
      for (const stream of helper.stdio) stream?.destroy();
    };
    const finish = (action: () => void) => {
      if (finished) return;
      finished = true;
      child.off('exit', onSandboxExit);
      action();
    };
    const onSandboxExit = () =>
      finish(() => {
        stop();
        resolve(() => {});
      });
    const fail = (reason: string) =>
      finish(() => {
        stop();
        reject(
          ToolError.temporary(
            'SANDBOX_NETWORK_FAILED',
            `The sandbox's network could not be set up (slirp4netns: ${reason}); the program did not run.`,
            {
              hint: 'Do not retry until the user fixes slirp4netns on the server, or sets shell.network to false.',
              details: { helper: slirp4netns, said: reason },
            },
          ),
        );
      });
    const startHelper = () => {
      if (pid === null || !up || helper || finished) return;
      const hardened = process.getuid?.() === 0 ? ['--enable-sandbox', '--enable-seccomp'] : [];
      // fd 3: ready (slirp4netns writes "1"); fd 4: exit (end-of-file from the server stops it).
      helper = spawn(
        slirp4netns,
        [
          '--configure',
          '--mtu=65520',
          '--disable-host-loopback',
          ...hardened,
          '--ready-fd=3',
          '--exit-fd=4',
          String(pid),
          'tap0',
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
          env: { PATH: '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv,
        },
      );
      const [, , stderr, ready, exit] = helper.stdio as (Duplex | null)[];
      for (const stream of [stderr, ready, exit]) stream?.on('error', () => {});
      stderr?.on('data', (chunk: Buffer) => {
        if (said.length < MAX_HELPER_WORDS) said += chunk.toString('utf8');
      });
      ready?.once('data', () =>
        finish(() => {
          handshake.end('go\n');
          resolve(stop);
        }),
      );
      helper.once('error', (error) => fail(error.message));
      helper.once('exit', (code, signal) => {
        // Its last words may still be on their way: wait for the end of stderr, briefly.
        const report = () => fail(lastLine(said) ?? `exited (${signal ?? `code ${code}`})`);
        if (!stderr || stderr.readableEnded) return report();
        stderr.once('end', report);
        setTimeout(report, 200).unref();
      });
    };

    child.once('exit', onSandboxExit);
    info.on('data', (chunk: Buffer) => {
      infoText += chunk.toString('utf8');
    });
    info.on('end', () => {
      // Empty when bubblewrap failed before it made the sandbox: its exit says why.
      const childPid = parseChildPid(infoText);
      if (childPid === null) return;
      pid = childPid;
      startHelper();
    });
    handshake.on('data', (chunk: Buffer) => {
      if (up) return;
      heard += chunk.toString('utf8');
      if (heard.includes('up\n')) {
        up = true;
        startHelper();
      }
    });
  });
}

function parseChildPid(text: string): number | null {
  try {
    const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** slirp4netns's last words, without its chatter about the tap fd. */
function lastLine(text: string): string | null {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(sent|received) tapfd/.test(line));
  return lines.at(-1) ?? null;
}

/** Whether `file` is a regular file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
