const PROCESS = Symbol.for('toolscope.process-output');

/** What a process-like tool returns: the normalize stage decides success from the exit code. */
export interface ProcessOutput {
  readonly [PROCESS]: true;
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Set when the process was killed (timeout, signal). */
  signal?: string | null;
}

/** Marks a tool's return value as process-like (stdout, stderr, exit code). */
export function processOutput(fields: Omit<ProcessOutput, typeof PROCESS>): ProcessOutput {
  return { [PROCESS]: true, ...fields };
}

export function isProcessOutput(value: unknown): value is ProcessOutput {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PROCESS] === true;
}
