import { boundError, boundText } from './bound-error';
import type { Redactor } from './redact';
import type { ToolErrorData, TraceRecord } from './types';

/** An error with the call's secrets (and secret-shaped values) scrubbed from its text and details. */
export function scrubError(error: ToolErrorData, redactor: Redactor, secrets: readonly string[]): ToolErrorData {
  const scrubbed: ToolErrorData = { ...error, message: redactor.scrubText(error.message, secrets) };
  if (error.hint) scrubbed.hint = redactor.scrubText(error.hint, secrets);
  if (error.details) scrubbed.details = redactor.scrubValue(error.details, secrets);
  return scrubbed;
}

/**
 * Scrubs the error paths of a record before it is stored: each attempt's error (already scrubbed
 * as it ended; again, as a fallback may have added secrets) and the detail of each failed stage
 * (they quote error messages, which may quote the arguments) — of every stage when the call has
 * secrets of its own (`everyStage`), since a note may quote a value anywhere. Each is bounded
 * after it is scrubbed (see `bound-error.ts`): a failed stage's detail quotes a message of any size.
 */
export function scrubRecordErrors(
  record: TraceRecord,
  redactor: Redactor,
  secrets: readonly string[],
  everyStage = false,
): void {
  const { attempts, stages } = record;
  for (let i = 0; i < attempts.length; i++) {
    const attempt = attempts[i];
    if (attempt?.error) {
      const error = boundError(attempt.error, (trimmed) => scrubError(trimmed, redactor, secrets));
      attempts[i] = { ...attempt, error };
    }
  }
  for (let i = 0; i < stages.length; i++) {
    const stage = stages[i];
    if ((everyStage || stage?.status === 'failed') && stage?.detail) {
      stages[i] = { ...stage, detail: boundText(redactor.scrubText(stage.detail, secrets)) };
    }
  }
}
