import { jsonPathDiff, sameJson } from '../ui/json-path-diff';
import type { IgnoredChange, IgnoreRules } from './volatile-paths';

/** What the verdict reads of a call: the same fields on the server (StoredTrace) and in the browser (TraceView). */
export interface ComparableCall {
  status: string;
  errorCode: string | null;
  output: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
}

/** The fields the verdict reads, from a stored trace or the browser's view of one. */
export const comparableOf = (trace: {
  status: string;
  error: { code: string } | null;
  output: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
}): ComparableCall => ({
  status: trace.status,
  errorCode: trace.error?.code ?? null,
  output: trace.output,
  stdout: trace.stdout,
  stderr: trace.stderr,
  exitCode: trace.exitCode,
});

/** Whether two calls' outcome and output differ, volatile paths aside. */
export interface CallVerdict {
  /** Either call is still running or awaiting approval: nothing is judged yet (both flags false). */
  pending: boolean;
  /** Status or error code differ. */
  outcome: boolean;
  /** Output (volatile paths aside), stdout, stderr or exit code differ. */
  output: boolean;
  /** The output's differences at volatile paths, left out of `output`. */
  ignored: IgnoredChange[];
}

/** Differences listed per output before the rest counts as changed unseen. */
const DIFF_LIMIT = 2_000;

export const isPending = (status: string) => status === 'running' || status === 'awaiting_approval';

/**
 * Whether a process tool's stdout is its output as text (the output is stdout parsed as JSON, or
 * stdout itself): then stdout's differences are the output's, judged with its volatile paths.
 */
function stdoutIsOutput(call: ComparableCall): boolean {
  const { stdout, output } = call;
  if (stdout === null || stdout === '') return false;
  if (typeof output === 'string') return output === stdout;
  try {
    return sameJson(JSON.parse(stdout.trim()), output);
  } catch {
    return false;
  }
}

/** The output's differences split into real ones (counted) and volatile ones (listed). */
export function outputDifferences(
  a: unknown,
  b: unknown,
  rules: IgnoreRules,
): { real: number; ignored: IgnoredChange[] } {
  if (sameJson(a, b)) return { real: 0, ignored: [] };
  const diff = jsonPathDiff(a, b, DIFF_LIMIT);
  const ignored: IgnoredChange[] = [];
  let real = diff.more;
  for (const change of diff.changes) {
    const rule = rules.match(change);
    if (rule) ignored.push({ ...change, rule: rule.pattern });
    else real += 1;
  }
  return { real, ignored };
}

/**
 * Judges two calls (usually a call and its replay).
 * 1. Either still running or awaiting approval: pending, nothing else judged.
 * 2. Outcome: status or error code.
 * 3. Output: the output's differences but those at volatile paths (`rules`), then stderr, the exit
 *    code, and stdout — unless stdout is the output on both sides, already judged.
 */
export function judgeCalls(a: ComparableCall, b: ComparableCall, rules: IgnoreRules): CallVerdict {
  if (isPending(a.status) || isPending(b.status)) return { pending: true, outcome: false, output: false, ignored: [] };
  const outcome = a.status !== b.status || a.errorCode !== b.errorCode;
  const { real, ignored } = outputDifferences(a.output ?? null, b.output ?? null, rules);
  const stdout = (a.stdout ?? '') !== (b.stdout ?? '') && !(stdoutIsOutput(a) && stdoutIsOutput(b));
  const output =
    real > 0 || stdout || (a.stderr ?? '') !== (b.stderr ?? '') || (a.exitCode ?? null) !== (b.exitCode ?? null);
  return { pending: false, outcome, output, ignored };
}
