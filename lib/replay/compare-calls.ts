import type { StoredTrace } from '../db/trace-store';
import { canonicalJson } from './canonical-json';

/** What differs between two calls (an original and its replay), part by part. */
export interface CallChanges {
  /** Status or error code differs. */
  outcome: boolean;
  /** Output, stdout, stderr or exit code differs. */
  output: boolean;
  /** The (redacted) arguments differ, key order aside. */
  arguments: boolean;
  status: boolean;
  error: boolean;
  stdout: boolean;
  stderr: boolean;
  exitCode: boolean;
  attempts: boolean;
}

const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/**
 * Compares two recorded calls. Arguments compare as shown (redacted), what ran aside: an edited
 * replay that changed a masked secret shows no change there, and nothing sealed is opened.
 */
export function compareCalls(a: StoredTrace, b: StoredTrace): CallChanges {
  const status = a.status !== b.status;
  const error = (a.error?.code ?? null) !== (b.error?.code ?? null);
  const stdout = a.stdout !== b.stdout;
  const stderr = a.stderr !== b.stderr;
  const exitCode = a.exitCode !== b.exitCode;
  const output = !sameJson(a.output, b.output) || stdout || stderr || exitCode;
  return {
    outcome: status || error,
    output,
    arguments: !sameJson(a.arguments, b.arguments),
    status,
    error,
    stdout,
    stderr,
    exitCode,
    attempts: a.attempts.length !== b.attempts.length,
  };
}
