import type { ToolErrorData } from './types';

const PROCESS = Symbol.for('toolscope.process-output');

/** What a process-like tool returns: the normalize stage decides success from the exit code. */
export interface ProcessOutput {
  readonly [PROCESS]: true;
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Set when the process was killed (timeout, signal). */
  signal?: string | null;
  /**
   * Why the attempt failed although the process ran (a limit Toolscope enforced, such as
   * OUTPUT_LIMIT): used instead of NON_ZERO_EXIT; stdout and stderr are still recorded.
   */
  failure?: ToolErrorData;
}

/** Marks a tool's return value as process-like (stdout, stderr, exit code). */
export function processOutput(fields: Omit<ProcessOutput, typeof PROCESS>): ProcessOutput {
  return { [PROCESS]: true, ...fields };
}

export function isProcessOutput(value: unknown): value is ProcessOutput {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PROCESS] === true;
}
