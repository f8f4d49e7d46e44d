import { errorData } from './errors';
import type { ProcessOutput } from './process-output';
import { truncateMiddle } from './truncate';
import type { ToolErrorData } from './types';

/**
 * Why a process-like result is a failed attempt, or null when it succeeded: the tool's own
 * `failure` (a limit Toolscope enforced) or NON_ZERO_EXIT with the exit code, the signal and
 * the tail of stderr. Decided at the execute stage, so retries and the breaker see it.
 */
export function processFailure(output: ProcessOutput): ToolErrorData | null {
  if (output.failure) return { ...output.failure, stage: 'execute' };
  if (output.exitCode === 0) return null;
  const stderr = typeof output.stderr === 'string' ? output.stderr.trim() : '';
  const tail = truncateMiddle(stderr, 2_000).text;
  return errorData(
    'NON_ZERO_EXIT',
    `The command exited with code ${output.exitCode}${output.signal ? ` (${output.signal})` : ''}${tail ? `: ${tail}` : '.'}`,
    {
      kind: 'business',
      retryable: false,
      hint: 'Read the error output above and change the command or its arguments.',
      details: { exitCode: output.exitCode, ...(output.signal ? { signal: output.signal } : {}) },
      stage: 'execute',
    },
  );
}
