import type { StoredTrace } from '../db/trace-store';
import { comparableOf, judgeCalls } from './call-verdict';
import { canonicalJson } from './canonical-json';
import { type IgnoredChange, type IgnoreRules, ignoreRules } from './volatile-paths';

/** What differs between two calls (an original and its replay), part by part. */
export interface CallChanges {
  /** Either call is still running or awaiting approval: `outcome` and `output` are not judged yet (false). */
  pending: boolean;
  /** Status or error code differs. */
  outcome: boolean;
  /** Output (volatile paths aside), stdout, stderr or exit code differs. */
  output: boolean;
  /** The (redacted) arguments differ, key order aside. */
  arguments: boolean;
  status: boolean;
  error: boolean;
  stdout: boolean;
  stderr: boolean;
  exitCode: boolean;
  attempts: boolean;
  /** The output's differences at volatile paths (`headers.date`, timestamps, the config's), left out of `output`. */
  ignored: IgnoredChange[];
}

const DEFAULT_RULES = ignoreRules();

/**
 * Compares two recorded calls. Arguments compare as shown (redacted), what ran aside: an edited
 * replay that changed a masked secret shows no change there, and nothing sealed is opened.
 * Differences of the output at paths `rules` names volatile do not count as "output changed".
 */
export function compareCalls(a: StoredTrace, b: StoredTrace, rules: IgnoreRules = DEFAULT_RULES): CallChanges {
  const verdict = judgeCalls(comparableOf(a), comparableOf(b), rules);
  return {
    pending: verdict.pending,
    outcome: verdict.outcome,
    output: verdict.output,
    arguments: canonicalJson(a.arguments) !== canonicalJson(b.arguments),
    status: a.status !== b.status,
    error: (a.error?.code ?? null) !== (b.error?.code ?? null),
    stdout: (a.stdout ?? '') !== (b.stdout ?? ''),
    stderr: (a.stderr ?? '') !== (b.stderr ?? ''),
    exitCode: a.exitCode !== b.exitCode,
    attempts: a.attempts.length !== b.attempts.length,
    ignored: verdict.ignored,
  };
}
