import { markInjected } from './fault-injection';
import type { LiveCall } from './live-call';
import { type Normalized, normalizeOutput, type OutputLimits } from './normalize';
import type { Redactor } from './redact';
import { joinDetail, type StageRecorder } from './stage-recorder';
import type { AnyTool } from './types';

/**
 * Stage 5 around `normalizeOutput`: the result goes in the record, replacing what the live view
 * showed, and the stage is recorded. For a failed attempt (`failedAttempt`), its stdout, stderr
 * and exit code are kept for the trace and the stage says so; the execute stage's error stands.
 */
export function runNormalizeStage(
  deps: { redactor: Redactor; limits: OutputLimits },
  call: { tool: AnyTool; value: unknown; live: LiveCall; stages: StageRecorder; failedAttempt: boolean },
): Normalized {
  const { live, stages } = call;
  const record = live.record;
  const start = stages.lastAt;
  const normalized = normalizeOutput(
    call.tool,
    call.value,
    deps.redactor,
    live.secrets,
    deps.limits,
    call.failedAttempt,
  );
  // Output an injected fault corrupted fails validation: the error says the fault did it.
  const fault = record.attempts.at(-1)?.fault;
  if (normalized.error && fault?.kind === 'corrupt_output') normalized.error = markInjected(normalized.error, fault);
  record.output = normalized.output;
  record.stdout = normalized.stdout;
  record.stderr = normalized.stderr;
  record.exitCode = normalized.exitCode;
  record.flags.truncated = normalized.truncated;
  // A tool that is not process-like may still have reported output as it ran: that stays.
  if (normalized.stdout !== null || normalized.stderr !== null) live.outputFinal = true;
  const flags: string[] = call.failedAttempt ? ["kept the failed attempt's output"] : [];
  if (normalized.truncated) flags.push('truncated');
  if (normalized.parseFailed) flags.push('stdout not JSON');
  if (normalized.error && !call.failedAttempt) stages.add('normalize', start, 'failed', normalized.error.message);
  else stages.add('normalize', start, 'ok', flags.length > 0 ? joinDetail(flags) : null);
  return normalized;
}
