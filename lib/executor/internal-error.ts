import { errorData } from './errors';
import type { LiveCall } from './live-call';
import { roundMs, type StageRecorder } from './stage-recorder';
import { STAGE_NAMES, type StageName, type ToolErrorData } from './types';

/** Who the trace says stopped a call that failed inside Toolscope: its attempt or its wait is interrupted. */
const DEFECT = { by: 'toolscope', reason: 'Toolscope failed while handling the call' } as const;

/**
 * A throw inside the pipeline — a defect of Toolscope's, never a tool's error (those are
 * outcomes) — as the call's error: INTERNAL_ERROR naming the stage it happened in and whether the
 * tool had started, with the thrown error's name, message and stack in `details` for the trace.
 * The call is made ready to finish: whatever it still waits on (an attempt, a backoff, an
 * approval, which leaves the approvals queue) is interrupted, the open stage and any running
 * attempt end failed.
 */
export function endWithDefect(live: LiveCall, stages: StageRecorder, t0: number, cause: unknown): ToolErrorData {
  live.cancel(DEFECT);
  const record = live.record;
  const stage = stages.current ?? firstUnrecorded(stages);
  const thrown = cause instanceof Error ? cause : null;
  const said = thrown ? thrown.message || thrown.name : String(cause);
  const ran = record.attempts.length > 0;
  const error = errorData(
    'INTERNAL_ERROR',
    `Toolscope failed while handling this call${stage ? ` (${stage} stage)` : ''}: ${said}. ${
      ran ? 'The tool had started, so its effect may have happened.' : 'The tool did not run.'
    }`,
    {
      details: {
        name: thrown?.name ?? typeof cause,
        message: said,
        ...(thrown?.stack ? { stack: thrown.stack } : {}),
      },
      ...(stage ? { stage } : {}),
    },
  );
  const detail = `${error.code}: ${said}`;
  if (stages.current) stages.end('failed', detail);
  else if (stage && stage !== 'trace') stages.add(stage, stages.lastAt, 'failed', detail);
  const now = roundMs(stages.lastAt - t0);
  record.attempts = record.attempts.map((attempt) =>
    attempt.outcome === 'running'
      ? { ...attempt, outcome: 'error', error, durationMs: Math.max(0, roundMs(now - attempt.startedAt)) }
      : attempt,
  );
  return error;
}

/** The first stage with no entry yet: where a defect between stages happened. */
function firstUnrecorded(stages: StageRecorder): StageName | null {
  for (const name of STAGE_NAMES) if (!stages.list.some((stage) => stage.name === name)) return name;
  return null;
}
