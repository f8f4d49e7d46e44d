import { type ChildProcess, type ChildProcessByStdio, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ToolError } from '../executor/errors';
import { createByteCollector } from './byte-collector';
import { detectBinary, NUL_BYTES_KIND } from './detect-binary';
import { formatBytes } from './format-bytes';

export interface RunProcessGroupOptions {
  /** What to execute: a path, or a name looked up on `env.PATH`. */
  program: string;
  /** The name the program sees as its argv[0]; default `program`. */
  argv0?: string;
  /** The program's name in errors, when `program` is a launcher (the sandbox) that runs it; default `argv0`. */
  name?: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to the child's stdin, which is then closed; without it the child reads end-of-file at once. */
  stdin?: string;
  /**
   * Gives the child, as fd 3, the read end of a pipe only this process holds the other end of:
   * it reads end-of-file when the server dies (see `process-sandbox.ts`).
   */
  lifeline?: boolean;
  /**
   * Set-up the launch needs once spawned, before its program may start (the sandbox's network,
   * `sandbox-network.ts`): `pipes` more pipes from fd 4 on, and `start`, given the child. A
   * rejection kills the group and fails the run with its error; what it resolves to is called
   * once the group is done.
   */
  attach?: { pipes: number; start(child: ChildProcess): Promise<() => void> };
  /** Per stream; past it the group is killed and the output marked truncated. */
  maxOutputBytes: number;
  signal: AbortSignal;
  /**
   * Called with each chunk as it arrives, decoded as UTF-8 (a character split across chunks is
   * held back until it is whole), only for the bytes within `maxOutputBytes`; once a stream
   * turns out binary, once more with a line saying so, then no more for it. Must not throw.
   */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

export interface ProcessGroupResult {
  /** The output as UTF-8 text; a binary stream is one line saying what it was (`binaryOutputNote`). */
  stdout: string;
  stderr: string;
  /** The exit code, or 128 + the signal number when the process was killed (as shells report it). */
  exitCode: number;
  signal: NodeJS.Signals | null;
  /** Which stream passed the output cap, if any. */
  outputLimitHit: 'stdout' | 'stderr' | null;
}

/**
 * Runs a program (argv, never a shell) as the leader of its own process group and waits for it.
 *
 * 1. `detached: true` makes the child a group leader, so `kill(-pid)` reaches everything it
 *    starts (pipelines, background jobs, grandchildren), not only the child itself.
 * 2. When `signal` aborts (timeout or cancel) the whole group gets SIGKILL and the promise
 *    rejects at once with the signal's reason, so the executor records a timeout.
 * 3. When the leader exits, whatever it left running in its group is killed too: nothing
 *    outlives the call, and leftover background jobs cannot hold the pipes open forever.
 * 4. stdout and stderr are kept up to `maxOutputBytes` each, and reported to `onOutput` as they
 *    arrive; past the cap the group is killed (`yes` would otherwise run until the timeout) and
 *    `outputLimitHit` names the stream, for the caller to report as a limit, not as an exit code.
 * 5. A stream that is binary — a known format's magic bytes at its start, or a NUL byte anywhere
 *    within the cap, the rule of `read_file` and `http_request` (`detect-binary.ts`) — is left out:
 *    the result, the live view and so the model get one line saying what it was and how long.
 *    Decoded as text it was mojibake, and each NUL byte 6 characters of JSON: 1 MiB of zeros made
 *    a 12.5 MB trace.
 *
 * A process that leaves the group on purpose (`setsid`, a daemon) escapes the group kill; run
 * under the sandbox's launcher (`process-sandbox.ts`) it cannot: killing the launcher kills its
 * pid namespace, everything in it included.
 */
export function runProcessGroup(options: RunProcessGroupOptions): Promise<ProcessGroupResult> {
  const { signal, maxOutputBytes } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const child = spawn(options.program, options.args, {
      argv0: options.argv0,
      cwd: options.cwd,
      // Next.js types make NODE_ENV required in ProcessEnv; the child must not inherit it either.
      env: options.env as NodeJS.ProcessEnv,
      shell: false,
      detached: true,
      stdio: [
        'pipe',
        'pipe',
        'pipe',
        ...(options.lifeline ? ['pipe' as const] : options.attach ? ['ignore' as const] : []),
        ...Array.from({ length: options.attach?.pipes ?? 0 }, () => 'pipe' as const),
      ],
      windowsHide: true,
    }) as ChildProcessByStdio<Writable, Readable, Readable>;
    const stdout = createByteCollector(maxOutputBytes);
    const stderr = createByteCollector(maxOutputBytes);
    let outputLimitHit: ProcessGroupResult['outputLimitHit'] = null;
    let settled = false;
    /** Undoes what `attach` set up; called once, when the run is settled. */
    let detach: (() => void) | null = null;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      for (const stream of child.stdio.slice(3)) stream?.destroy();
      detach?.();
      signal.removeEventListener('abort', onAbort);
      action();
    };
    const onAbort = () => {
      killGroup();
      settle(() => reject(signal.reason));
    };
    const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const report = (stream: 'stdout' | 'stderr', text: string) => {
      if (!options.onOutput || text === '') return;
      try {
        options.onOutput(stream, text);
      } catch {
        // A live view's failure must not fail the command.
      }
    };
    /** What each stream is, once it turned out binary (see 5. above). */
    const binary: Record<'stdout' | 'stderr', string | null> = { stdout: null, stderr: null };
    const collect = (collector: typeof stdout, stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const room = maxOutputBytes - collector.totalBytes;
      if (room > 0 && binary[stream] === null) {
        const kept = chunk.subarray(0, Math.min(room, chunk.length));
        // A format's magic bytes are only at its start; a NUL byte may come anywhere.
        binary[stream] =
          (collector.totalBytes === 0 ? detectBinary(kept) : null) ?? (kept.includes(0) ? NUL_BYTES_KIND : null);
        if (binary[stream] === null) report(stream, decoders[stream].write(kept));
        else {
          // On a line of its own after what was shown of the stream, if anything was.
          const before = collector.totalBytes > 0 ? `${decoders[stream].end()}\n` : '';
          report(stream, `${before}${binaryOutputNote(stream, binary[stream])}\n`);
        }
      }
      if (!collector.push(chunk) && outputLimitHit === null) {
        outputLimitHit = stream;
        killGroup();
      }
    };

    signal.addEventListener('abort', onAbort, { once: true });
    options.attach?.start(child).then(
      (undo) => {
        if (settled) undo();
        else detach = undo;
      },
      (error: unknown) => {
        killGroup();
        settle(() => reject(error));
      },
    );
    child.stdout.on('data', collect(stdout, 'stdout'));
    child.stderr.on('data', collect(stderr, 'stderr'));
    child.on('error', (error) => {
      killGroup();
      settle(() => reject(spawnError(error, options.name ?? options.argv0 ?? options.program)));
    });
    child.on('exit', killGroup);
    child.on('close', (code, killedBy) => {
      settle(() => {
        // A character cut by the cap stays out, as in the collected text; otherwise flush the rest.
        if (!stdout.truncated && binary.stdout === null) report('stdout', decoders.stdout.end());
        if (!stderr.truncated && binary.stderr === null) report('stderr', decoders.stderr.end());
        const output = (collector: typeof stdout, stream: 'stdout' | 'stderr') => {
          const kind = binary[stream];
          const text = kind === null ? collector.text() : binaryOutputNote(stream, kind, collector.totalBytes);
          return collector.truncated ? `${text}\n[... ${stream} truncated ...]` : text;
        };
        resolve({
          stdout: output(stdout, 'stdout'),
          stderr: output(stderr, 'stderr'),
          exitCode: code ?? 128 + (killedBy ? (constants.signals[killedBy] ?? 0) : 0),
          signal: killedBy,
          outputLimitHit,
        });
      });
    });
    // The program may exit without reading its input: EPIPE is not our failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin);
  });
}

/**
 * The line a binary stream is replaced with: what it was and, once it ended, how many bytes came.
 * @example binaryOutputNote('stdout', 'PNG image', 20480) // '[binary stdout left out: PNG image, 20 KiB]'
 */
export function binaryOutputNote(stream: 'stdout' | 'stderr', kind: string, bytes?: number): string {
  return `[binary ${stream} left out: ${kind}${bytes === undefined ? '' : `, ${formatBytes(bytes)}`}]`;
}

function spawnError(error: NodeJS.ErrnoException, program: string): ToolError {
  switch (error.code) {
    case 'ENOENT':
      return ToolError.parameter('PROGRAM_NOT_FOUND', `"${program}" is not installed or not on the PATH.`, {
        cause: error,
        hint: 'Use another program from the allowed list.',
      });
    case 'EACCES':
    case 'EPERM':
      return ToolError.parameter('PROGRAM_NOT_EXECUTABLE', `"${program}" exists but cannot be executed.`, {
        cause: error,
      });
    default:
      return ToolError.temporary('SPAWN_FAILED', `Could not start "${program}" (${error.code ?? error.message}).`, {
        cause: error,
      });
  }
}
