import { boundError } from './bound-error';
import { type CancelHook, type Cancellable, cancelReasonOf } from './call-cancellation';
import type { Clock } from './clock';
import { createLiveOutput, type LiveOutput } from './live-output';
import { createProgressThrottle, type ProgressThrottle } from './progress-throttle';
import type { Redactor } from './redact';
import { scrubError } from './scrub-errors';
import type {
  CancelReason,
  FaultSpec,
  OutputReporter,
  StageName,
  ToolErrorData,
  ToolResult,
  TraceRecord,
  TraceSink,
  TraceStep,
} from './types';

/**
 * One call while it runs: its record, its cancellation, what its current attempt printed, and
 * its throttled progress. The executor keeps these in its in-flight map; `inFlight()` and
 * `sink.progress` see scrubbed snapshots of them, never the live objects.
 */
export class LiveCall implements Cancellable {
  cancelReason: CancelReason | null = null;
  /** Secret values of this call's arguments: scrubbed from everything shown or stored. */
  secrets: readonly string[] = [];
  /** Set once normalize has put the final stdout and stderr in the record. */
  outputFinal = false;
  /** Set once the sink's `begin` has recorded the call. */
  begun = false;
  /** The call's one-off fault (`ExecutionContext.fault`, replay with fault): applied to its attempts instead of the rules. */
  fault: FaultSpec | null = null;
  private signal: AbortSignal | null = null;
  private onAbort: (() => void) | null = null;
  private hook: CancelHook | null = null;
  private waiters: ((result: ToolResult) => void)[] | null = null;
  private output: LiveOutput | null = null;
  private attempt = 0;
  private ended = false;
  private readonly throttle: ProgressThrottle | null;

  constructor(
    readonly record: TraceRecord,
    private readonly redactor: Redactor,
    private readonly maxOutputChars: number,
    clock: Clock,
    private readonly sink: TraceSink,
  ) {
    const progress = sink.progress;
    this.throttle = progress ? createProgressThrottle(clock, () => this.publish(sink, progress)) : null;
  }

  /** Set by the executor from the context: told once the call awaits approval. */
  onAwaitingApproval: ((traceId: string) => void) | null = null;

  /** The call is recorded as awaiting approval: tell whoever asked to know. */
  awaitingApproval(): void {
    const hook = this.onAwaitingApproval;
    if (!hook) return;
    try {
      hook(this.record.id);
    } catch (error) {
      console.error('[toolscope] an onAwaitingApproval hook failed:', error);
    }
  }

  onCancel(hook: CancelHook | null): void {
    this.hook = hook;
  }

  /**
   * Cancels the call when the caller's signal aborts (its reason says who, when it is a
   * CancelReason). With `disconnect`, the abort only says the caller went away: a call that has
   * waited for a person is then released instead — a person, not a connection, decides it.
   */
  link(signal: AbortSignal, disconnect = false): void {
    this.signal = signal;
    this.onAbort = () => {
      if (disconnect && this.record.approval !== null) this.release();
      else this.cancel(cancelReasonOf(signal.reason));
    };
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /**
   * The caller stops waiting (it was answered that the call awaits approval): its signal no
   * longer cancels the call, which goes on until it is decided.
   */
  release(): void {
    if (this.signal && this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
    this.signal = null;
    this.onAbort = null;
  }

  /** Cancels the call; the first reason wins. Interrupts whatever the call is waiting on. */
  cancel(reason: CancelReason): void {
    if (this.cancelReason || this.ended) return;
    this.cancelReason = reason;
    const hook = this.hook;
    this.hook = null;
    hook?.(reason);
  }

  /** Resolves with the call's result once it is recorded. */
  result(): Promise<ToolResult> {
    return new Promise((resolve) => {
      this.waiters ??= [];
      this.waiters.push(resolve);
    });
  }

  /** The record changed: publish progress (throttled). */
  changed(): void {
    this.throttle?.changed();
  }

  /** A stage that may wait began (execute, the wait for approval): live views hear of it once the call is recorded. */
  stageBegan(stage: StageName): void {
    this.step({ type: 'stage', stage });
  }

  /** Attempt `attempt` ended (its entry in the record is final). */
  attemptEnded(attempt: number): void {
    this.step({ type: 'attempt', attempt });
  }

  /** The sink just published the record (begin, update): progress waits its turn. */
  published(): void {
    this.throttle?.published();
  }

  /** Starts attempt `n`: its output starts empty; returns where its tool reports output. */
  startAttempt(n: number): OutputReporter {
    this.attempt = n;
    this.output?.reset();
    return {
      write: (stream, text) => {
        if (this.ended || this.attempt !== n) return; // a late write from an abandoned attempt
        this.output ??= createLiveOutput(this.maxOutputChars);
        this.output.write(stream, text);
        this.changed();
      },
      scrub: (text) => this.redactor.scrubText(text, this.secrets),
    };
  }

  /**
   * The call is over: stops progress, and keeps what the last attempt printed (scrubbed) when
   * normalize did not run (a timeout, a cancellation, a thrown error).
   */
  end(): void {
    this.ended = true;
    this.hook = null;
    if (this.signal && this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
    this.throttle?.stop();
    if (!this.outputFinal && this.output?.written) {
      this.record.stdout = this.scrub(this.output.text('stdout'));
      this.record.stderr = this.scrub(this.output.text('stderr'));
    }
  }

  /**
   * An attempt's error as it goes in the record: scrubbed now, since a live view (the trace page,
   * `GET /api/v1/traces/:id`) shows the record while the call still runs; and bounded, its
   * message and details cut after scrubbing (see `bound-error.ts`).
   */
  scrubError(error: ToolErrorData): ToolErrorData {
    return boundError(error, (trimmed) => scrubError(trimmed, this.redactor, this.secrets));
  }

  /** Hands the recorded result to whoever waits on it (cancel callers). */
  settle(result: ToolResult): void {
    const waiters = this.waiters;
    this.waiters = null;
    if (waiters) for (const resolve of waiters) resolve(result);
  }

  /** A consistent, scrubbed copy of the record as it is now: the live output included. */
  snapshot(): TraceRecord {
    const r = this.record;
    const copy: TraceRecord = {
      ...r,
      stages: r.stages.map((s) => ({ ...s })),
      attempts: r.attempts.map((a) => ({ ...a })),
      flags: { ...r.flags },
      metadata: { ...r.metadata },
    };
    if (!this.outputFinal && !this.ended && this.output?.written) {
      copy.stdout = this.scrub(this.output.text('stdout'));
      copy.stderr = this.scrub(this.output.text('stderr'));
    }
    return copy;
  }

  /** Live views are best-effort: a listener that throws must not fail the call (or a tool's write). */
  private publish(sink: TraceSink, progress: NonNullable<TraceSink['progress']>): void {
    try {
      progress.call(sink, this.snapshot());
    } catch (error) {
      console.error(`[toolscope] progress listener failed for ${this.record.id}:`, error);
    }
  }

  private step(step: TraceStep): void {
    if (!this.begun || !this.sink.step) return;
    try {
      this.sink.step(this.record, step);
    } catch (error) {
      console.error(`[toolscope] step listener failed for ${this.record.id}:`, error);
    }
  }

  private scrub(text: string | null): string | null {
    return text === null ? null : this.redactor.scrubText(text, this.secrets);
  }
}
