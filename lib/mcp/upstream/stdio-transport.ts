import { type ChildProcess, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ERROR_MESSAGE_CHARS } from '../../executor/bound-error';
import { createLineReader, oversizedAnswer } from './line-reader';

/** Server processes still running: if Toolscope exits before closing them, their groups are ended too. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  running.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) killGroup(child, 'SIGTERM');
  });
}

export interface StdioServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
}

/** How a server process ended: its exit code, or the signal that killed it. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

/**
 * The MCP stdio transport (newline-delimited JSON-RPC on the child's stdin and stdout), like the
 * SDK's `StdioClientTransport` with what an upstream server's supervisor needs besides:
 * 1. the child runs in a process group of its own, and closing kills the group (a server started
 *    through `npx` or a shell leaves no grandchild behind);
 * 2. each line the child writes to stderr goes to `onStderrLine`, cut to MAX_STDERR_LINE_CHARS;
 * 3. how the child ended (exit code or signal) is kept for the message saying why it is down;
 * 4. stdout is split into lines in linear time, and a message over MAX_STDIO_MESSAGE_BYTES is
 *    dropped as it comes, answered by an error for its request (see `line-reader.ts`).
 */
/** Characters of one stderr line kept (the line as an error message keeps it). */
export const MAX_STDERR_LINE_CHARS = MAX_ERROR_MESSAGE_CHARS;

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The protocol version negotiated at initialization (the Client sets it). */
  protocolVersion: string | null = null;
  /** Set once the child has exited. */
  exit: ProcessExit | null = null;
  private child: ChildProcess | null = null;
  private readonly lines = createLineReader({
    line: (text) => {
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(text);
      } catch (error) {
        this.onerror?.(error as Error);
        return;
      }
      this.deliver(message);
    },
    oversized: (bytes, id) => {
      if (id !== null) this.deliver(oversizedAnswer(id, bytes));
      else this.onerror?.(new Error(`A message of ${bytes} bytes was dropped: over the stdio message limit`));
    },
  });
  private stderrRest = '';
  /** Characters of the current stderr line past MAX_STDERR_LINE_CHARS, not kept. */
  private stderrDropped = 0;
  private delivering: Promise<void> = Promise.resolve();

  constructor(
    private readonly spec: StdioServerSpec,
    private readonly onStderrLine: (line: string) => void,
  ) {}

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('This transport was already started');
    return new Promise((resolve, reject) => {
      const child: ChildProcess = spawn(this.spec.command, this.spec.args, {
        env: { ...getDefaultEnvironment(), ...this.spec.env } as NodeJS.ProcessEnv,
        cwd: this.spec.cwd ?? undefined,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.child = child;
      track(child);
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
      });
      child.once('close', () => {
        running.delete(child);
        this.flushStderr();
        this.child = null;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.lines.push(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => this.heardStderr(text));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('Not connected: the server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, then SIGTERM, then SIGKILL to the process group, a second apart, until the child is gone. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) =>
      Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    if (await within(1_000)) return;
    killGroup(child, 'SIGTERM');
    if (await within(1_000)) return;
    killGroup(child, 'SIGKILL');
    await within(1_000);
  }

  /**
   * Hands over one message a microtask after the previous one. The SDK runs a notification's
   * handler a microtask later, but settles a response at once: a progress notification and the
   * response that follows it in one chunk would otherwise lose the progress (its request is gone).
   */
  private deliver(message: JSONRPCMessage): void {
    this.delivering = this.delivering.then(() => {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
  }

  /**
   * Splits stderr into lines in linear time, each cut to MAX_STDERR_LINE_CHARS: a server writing
   * megabytes without a newline (it joined the rest to every chunk, and kept all of it) costs
   * neither memory nor quadratic time, and its line says how much was not kept.
   */
  private heardStderr(text: string): void {
    let from = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
      this.takeStderr(text, from, newline);
      this.flushStderr(true);
      from = newline + 1;
    }
    if (from < text.length) this.takeStderr(text, from, text.length);
  }

  private takeStderr(text: string, from: number, to: number): void {
    const room = MAX_STDERR_LINE_CHARS - this.stderrRest.length;
    if (to - from <= room) this.stderrRest += text.slice(from, to);
    else {
      if (room > 0) this.stderrRest += text.slice(from, from + room);
      this.stderrDropped += to - from - Math.max(0, room);
    }
  }

  /** Hands over the current stderr line: an empty one too when a newline ended it (`ended`). */
  private flushStderr(ended = false): void {
    const line = this.stderrRest.endsWith('\r') ? this.stderrRest.slice(0, -1) : this.stderrRest;
    const dropped = this.stderrDropped;
    this.stderrRest = '';
    this.stderrDropped = 0;
    if (dropped > 0) this.onStderrLine(`${line}…[${dropped} more characters of this line not kept]`);
    else if (line || ended) this.onStderrLine(line);
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}
