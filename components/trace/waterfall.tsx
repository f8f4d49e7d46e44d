'use client';

import { Zap } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { Attempt, AttemptFault, StageName, StageStatus, TraceStage } from '@/lib/executor/types';
import { attemptFaultSummary, faultSource } from '@/lib/ui/fault-kinds';
import { axisTicks, formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { FaultBanner } from '../faults/fault-banner';

interface Bar {
  key: string;
  label: string;
  start: number;
  duration: number;
  kind: 'stage' | 'attempt' | 'backoff';
  tone: StageStatus | 'error' | 'timeout' | 'cancelled' | 'backoff';
  detail: string | null;
  indent?: boolean;
  /** The attempt's deadline, ms from the start of the call: drawn as a limit line. */
  limitAt?: number;
  /** The fault injected into the attempt: the bar is outlined, an injected delay drawn inside it. */
  fault?: AttemptFault;
}

const TONE: Record<Bar['tone'], string> = {
  ok: 'bg-emerald-500 dark:bg-emerald-400',
  failed: 'bg-red-500 dark:bg-red-400',
  error: 'bg-red-500 dark:bg-red-400',
  timeout: 'bg-orange-500 dark:bg-orange-400',
  skipped: 'bg-transparent border border-dashed border-zinc-400',
  waiting: 'bg-amber-400 animate-pulse',
  running: 'bg-blue-500 animate-pulse dark:bg-blue-400',
  cancelled: 'bg-zinc-500 dark:bg-zinc-400',
  backoff: 'bg-[repeating-linear-gradient(135deg,var(--line)_0_4px,transparent_4px_8px)] border border-line',
};

/** Room each axis label needs, in pixels; narrower axes label every second (third…) tick. */
const LABEL_PX = 52;
/** A running attempt's limit widens the axis only when it is this close; beyond, it is pinned at the edge. */
const LIMIT_REACH = 10;

function attemptBar(attempt: Attempt, key: string): Bar {
  const showLimit = attempt.timeoutMs !== undefined && (attempt.outcome === 'running' || attempt.outcome === 'timeout');
  return {
    key,
    label: attempt.fallback ? `fallback ${escapeInvisible(attempt.tool)}` : `attempt ${attempt.number}`,
    start: attempt.startedAt,
    duration: attempt.durationMs,
    kind: 'attempt',
    tone: attempt.outcome === 'ok' ? 'ok' : attempt.outcome,
    detail: [
      attempt.outcome,
      attempt.timeoutMs !== undefined && `limit ${formatDuration(attempt.timeoutMs)}`,
      attempt.error && `${attempt.error.code}: ${attempt.error.message}`,
      attempt.fault &&
        `fault injected by ${faultSource(attempt.fault)}: ${attemptFaultSummary(attempt.fault, attempt.number)}`,
    ]
      .filter(Boolean)
      .join(' — '),
    indent: true,
    ...(showLimit ? { limitAt: attempt.startedAt + (attempt.timeoutMs ?? 0) } : {}),
    ...(attempt.fault ? { fault: attempt.fault } : {}),
  };
}

function barsOf(stages: TraceStage[], attempts: Attempt[], cancelledStage: StageName | null): Bar[] {
  const bars: Bar[] = [];
  const attemptBars = () => {
    for (const attempt of attempts) {
      bars.push(attemptBar(attempt, `attempt-${attempt.tool}-${attempt.number}-${attempt.startedAt}`));
      if (attempt.backoffMs !== null && attempt.backoffMs > 0) {
        bars.push({
          key: `backoff-${attempt.tool}-${attempt.number}`,
          label: 'backoff',
          start: attempt.startedAt + attempt.durationMs,
          duration: attempt.backoffMs,
          kind: 'backoff',
          tone: 'backoff',
          detail: `waiting ${formatDuration(attempt.backoffMs)} before attempt ${attempt.number + 1}`,
          indent: true,
        });
      }
    }
  };
  for (const stage of stages) {
    bars.push({
      key: `stage-${stage.name}`,
      label: stage.name,
      start: stage.startedAt,
      duration: stage.durationMs,
      kind: 'stage',
      tone: stage.status === 'failed' && stage.name === cancelledStage ? 'cancelled' : stage.status,
      detail: stage.detail,
    });
    if (stage.name === 'execute') attemptBars();
  }
  // Attempts recorded before their execute stage is (a snapshot between the two) still show.
  if (!stages.some((s) => s.name === 'execute')) attemptBars();
  return bars;
}

/** The axis element's width, tracked; null until measured (server render: every label). */
function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState<number | null>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(entry?.contentRect.width ?? null));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

function durationText(bar: Bar): string {
  return bar.tone === 'skipped' ? '—' : formatDuration(bar.duration);
}

/**
 * The call on a time axis: one bar per stage, and inside execute one bar per attempt with the
 * backoff waits between them. While the call runs the bars in progress grow (the caller passes
 * elapsed durations, see `withElapsed`) and a running attempt's timeout is drawn as a limit line.
 * The axis picks round ticks for any total (µs to hours) and labels only as many as fit; tiny bars
 * keep a minimum width and every bar says its start offset and duration in words, on hover or focus.
 */
export function Waterfall({
  stages,
  attempts,
  totalMs,
  cancelledStage = null,
}: {
  stages: TraceStage[];
  attempts: Attempt[];
  totalMs: number | null;
  /** The stage the call was cancelled in: drawn as cancelled, not failed. */
  cancelledStage?: StageName | null;
}) {
  const bars = barsOf(stages, attempts, cancelledStage);
  const reached = Math.max(totalMs ?? 0, ...bars.map((b) => b.start + b.duration), 0.001);
  const nearLimits = bars.flatMap((b) =>
    b.limitAt !== undefined && b.tone === 'running' && b.limitAt <= reached * LIMIT_REACH ? [b.limitAt] : [],
  );
  const end = Math.max(reached, ...nearLimits);
  const ticks = axisTicks(end);
  const scale = Math.max(ticks.at(-1)!, end);
  const [active, setActive] = useState<string | null>(null);
  const [axisRef, axisWidth] = useWidth<HTMLDivElement>();
  const stride = axisWidth ? Math.max(1, Math.ceil((ticks.length * LABEL_PX) / axisWidth)) : 1;
  const pct = (ms: number) => `${Math.min(100, Math.max(0, (ms / scale) * 100))}%`;

  return (
    <figure className="rounded border border-line p-3" data-testid="waterfall">
      <figcaption className="sr-only">Timeline of the call's stages and attempts</figcaption>
      <div className="mb-2 empty:hidden">
        <FaultBanner attempts={attempts} />
      </div>
      <div className="grid grid-cols-[5.5rem_1fr_3.75rem] items-center gap-x-2 sm:grid-cols-[8.5rem_1fr_6rem]">
        <div />
        <div ref={axisRef} className="relative h-5 border-b border-line text-[10px] text-fg-muted" aria-hidden>
          {ticks.map((tick, index) =>
            index % stride === 0 ? (
              <span
                key={tick}
                data-testid="waterfall-tick"
                className={`absolute bottom-0 whitespace-nowrap pb-0.5 tabular-nums ${index === 0 ? '' : index === ticks.length - 1 ? '-translate-x-full' : '-translate-x-1/2'}`}
                style={{ left: pct(tick) }}
              >
                {formatDuration(tick)}
              </span>
            ) : null,
          )}
        </div>
        <div />
        {bars.map((bar) => {
          const info = `${bar.label}: starts at +${formatDuration(bar.start)}, ${bar.tone === 'running' ? 'running for' : 'lasts'} ${formatDuration(bar.duration)}${bar.kind === 'stage' ? `, ${bar.tone}` : ''}${bar.detail ? ` — ${bar.detail}` : ''}`;
          const open = active === bar.key;
          const limitInside = bar.limitAt !== undefined && bar.limitAt <= scale;
          return (
            <div key={bar.key} className="contents" data-testid={`waterfall-${bar.kind}`} data-tone={bar.tone}>
              <div
                className={`truncate py-0.5 text-xs ${bar.indent ? 'pl-2 text-fg-muted sm:pl-4' : 'font-medium'}`}
                title={bar.fault ? `${bar.label} (fault: ${bar.fault.kind})` : bar.label}
              >
                {bar.fault && (
                  <Zap
                    size={11}
                    className="mr-0.5 inline text-fuchsia-600 dark:text-fuchsia-400"
                    aria-label="fault injected"
                    data-testid="waterfall-fault-mark"
                  />
                )}
                {bar.label}
              </div>
              <div className="relative h-5">
                {ticks.map((tick) => (
                  <span
                    key={tick}
                    className="absolute inset-y-0 w-px bg-line/60"
                    style={{ left: pct(tick) }}
                    aria-hidden
                  />
                ))}
                <button
                  type="button"
                  aria-label={info}
                  onMouseEnter={() => setActive(bar.key)}
                  onMouseLeave={() => setActive(null)}
                  onFocus={() => setActive(bar.key)}
                  onBlur={() => setActive(null)}
                  className={`absolute top-1 h-3 min-w-[3px] rounded-sm ${TONE[bar.tone]} ${bar.fault ? 'outline-2 outline-offset-1 outline-fuchsia-500 outline-dashed dark:outline-fuchsia-400' : ''}`}
                  style={{ left: pct(bar.start), width: pct(bar.duration) }}
                  data-testid="waterfall-bar"
                  data-fault={bar.fault?.kind}
                />
                {bar.fault?.kind === 'latency' && (
                  <span
                    className="pointer-events-none absolute top-1 h-3 rounded-l-sm bg-[repeating-linear-gradient(135deg,var(--color-fuchsia-500)_0_3px,transparent_3px_6px)] opacity-80"
                    style={{ left: pct(bar.start), width: pct(Math.min(bar.fault.ms, bar.duration)) }}
                    title={`injected delay: ${formatDuration(bar.fault.ms)}`}
                    data-testid="waterfall-fault-latency"
                    data-ms={bar.fault.ms}
                  />
                )}
                {bar.limitAt !== undefined && (
                  <span
                    className={`absolute inset-y-0 w-0 border-l-2 border-dashed border-red-500 dark:border-red-400 ${limitInside ? '' : 'right-0'}`}
                    style={limitInside ? { left: pct(bar.limitAt) } : undefined}
                    title={`time limit: ${formatDuration(bar.limitAt - bar.start)} after the attempt started${limitInside ? '' : ' (beyond the axis)'}`}
                    data-testid="waterfall-limit"
                  />
                )}
                {open && (
                  <div
                    role="tooltip"
                    className="pointer-events-none absolute top-5 z-20 w-max max-w-[min(28rem,80vw)] rounded border border-line bg-bg px-2 py-1 text-xs shadow-lg"
                    style={{ left: `min(${pct(bar.start)}, calc(100% - 12rem))` }}
                  >
                    <div className="font-medium">{bar.label}</div>
                    <div className="tabular-nums text-fg-muted">
                      start +{formatDuration(bar.start)} · duration {durationText(bar)}
                    </div>
                    {bar.detail && <div className="mt-0.5 whitespace-pre-wrap break-words">{bar.detail}</div>}
                  </div>
                )}
              </div>
              <div className="text-right text-xs tabular-nums text-fg-muted">
                {durationText(bar)}
                {bar.limitAt !== undefined && bar.tone === 'running' && (
                  <div className="text-[10px] text-red-700 dark:text-red-300">
                    limit {formatDuration(bar.limitAt - bar.start)}
                  </div>
                )}
              </div>
            </div>
          );
        })}
      </div>
    </figure>
  );
}
