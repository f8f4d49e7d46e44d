import { errorData } from './errors';
import type { LiveCall } from './live-call';
import type { Normalized } from './normalize';
import type { StageRecorder } from './stage-recorder';
import type { FinishCall } from './trace-stage';
import type { ToolResult, TraceRecord } from './types';

/**
 * A recorded call's outcome, as recording mode hands it back instead of running the tool: its
 * fields as recorded (redacted and capped; `error` null when it succeeded, `modelMessage` the
 * text the model received), the recorded call's id (the new trace's `servedFrom`) and whether
 * the model got a truncated output.
 */
export type RecordedResult = Pick<
  TraceRecord,
  'output' | 'stdout' | 'stderr' | 'exitCode' | 'error' | 'modelMessage' | 'modelTruncation'
> & { traceId: string; truncated: boolean };

/**
 * Recording mode for a call (`ExecutionContext.recording`): calls are answered from a recorded
 * session, like a VCR cassette. The executor asks `take` once per call, after validation.
 */
export interface Recording {
  /** The recorded session, named in a miss. */
  sessionId: string;
  /** What a call that matches nothing does: run for real, or fail with RECORDING_MISS. */
  onMiss: 'run' | 'fail';
  /**
   * The recorded result for a call of `tool` with these arguments, redacted as its trace records
   * them (secrets masked, so a guess of a recorded secret is served as a wrong one is): the nth
   * identical call gets the nth recording, any later one the last. Null on a miss.
   */
  take(tool: string, args: unknown): RecordedResult | null;
}

/**
 * Recording mode, between validation and permission. A hit ends the call with the recorded
 * outcome: nothing is checked or run (the permission and execute stages say where the result came
 * from), and the record points at the recorded call. A miss fails with RECORDING_MISS, or — with
 * `onMiss: 'run'` — returns null and the call goes on through the pipeline.
 */
export function serveFromRecording(
  recording: Recording,
  call: { live: LiveCall; stages: StageRecorder; t0: number },
  finish: FinishCall,
): ToolResult | Promise<ToolResult> | null {
  const { live, stages, t0 } = call;
  const record = live.record;
  // The redacted arguments (set by validation): matching on the real ones would tell a right
  // guess of a recorded secret (served) from a wrong one (a miss).
  const recorded = recording.take(record.tool, record.arguments);
  if (!recorded) {
    if (recording.onMiss === 'run') return null;
    const error = errorData(
      'RECORDING_MISS',
      `The recorded session "${recording.sessionId}" has no call to ${record.tool} with these arguments, so nothing ran (recording mode fails on a miss).`,
      { details: { replayFrom: recording.sessionId, tool: record.tool }, stage: 'execute' },
    );
    stages.add('permission', stages.lastAt, 'skipped', `recording mode: nothing runs, so nothing to check`);
    stages.add('execute', stages.lastAt, 'failed', `${error.code}: ${error.message}`);
    return finish(live, stages, t0, error);
  }
  const note = `served from the recording ${recorded.traceId}`;
  stages.add('permission', stages.lastAt, 'skipped', note);
  stages.add('execute', stages.lastAt, 'skipped', note);
  record.servedFrom = recorded.traceId;
  record.output = recorded.output;
  record.stdout = recorded.stdout;
  record.stderr = recorded.stderr;
  record.exitCode = recorded.exitCode;
  record.flags.truncated = recorded.truncated;
  live.outputFinal = true;
  const modelText = recorded.modelMessage ?? JSON.stringify(recorded.output ?? null);
  const normalized: Normalized = {
    output: recorded.output,
    // What the model got: the recorded text when it was cut head-and-tail, else the output itself.
    modelOutput: recorded.modelTruncation ? modelText : recorded.output,
    modelText,
    stdout: recorded.stdout,
    stderr: recorded.stderr,
    exitCode: recorded.exitCode,
    truncated: recorded.truncated,
    modelTruncation: recorded.modelTruncation,
    parseFailed: false,
    error: null,
  };
  return finish(live, stages, t0, recorded.error ?? undefined, normalized);
}
