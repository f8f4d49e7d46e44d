import { type ChildProcess, fork } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Forks one of the bench's bundled scripts (beside this one) with its options as JSON. */
export function forkScript(script: string, options: unknown): ChildProcess {
  return fork(new URL(script, import.meta.url), [JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The next IPC message of `type` from a child; rejects if the child exits first or time runs out. */
export function nextMessage<T>(child: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no "${type}" from the child within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { type?: string } & T) => {
      if (message.type === type) finish(undefined, message);
    };
    const onExit = (code: number | null) => finish(new Error(`the child exited (${code}) before "${type}"`));
    function finish(error?: Error, message?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message as T);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Whether the module at `moduleUrl` is the script node was started with (not imported by a test). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === moduleUrl;
}
