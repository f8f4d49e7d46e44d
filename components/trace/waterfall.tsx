'use client';

import { useState } from 'react';
import type { Attempt, StageStatus, TraceStage } from '@/lib/executor/types';
import { axisTicks, formatDuration } from '@/lib/ui/format';

interface Bar {
  key: string;
  label: string;
  start: number;
  duration: number;
  kind: 'stage' | 'attempt' | 'backoff';
  tone: StageStatus | 'error' | 'timeout' | 'cancelled' | 'backoff';
  detail: string | null;
  indent?: boolean;
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

function barsOf(stages: TraceStage[], attempts: Attempt[]): Bar[] {
  const bars: Bar[] = [];
  for (const stage of stages) {
    bars.push({
      key: `stage-${stage.name}`,
      label: stage.name,
      start: stage.startedAt,
      duration: stage.durationMs,
      kind: 'stage',
      tone: stage.status,
      detail: stage.detail,
    });
    if (stage.name !== 'execute') continue;
    for (const attempt of attempts) {
      const who = attempt.fallback ? `fallback ${attempt.tool}` : `attempt ${attempt.number}`;
      bars.push({
        key: `attempt-${attempt.tool}-${attempt.number}-${attempt.startedAt}`,
        label: who,
        start: attempt.startedAt,
        duration: attempt.durationMs,
        kind: 'attempt',
        tone: attempt.outcome === 'ok' ? 'ok' : attempt.outcome,
        detail: [
          attempt.outcome,
          attempt.error && `${attempt.error.code}: ${attempt.error.message}`,
          attempt.fault && `fault injected: ${attempt.fault}`,
        ]
          .filter(Boolean)
          .join(' — '),
        indent: true,
      });
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
  }
  // A call recorded without an execute stage (rejected early) can still carry no attempts; one
  // with attempts but no execute stage yet (running) shows them after the stages.
  if (!stages.some((s) => s.name === 'execute')) {
    for (const attempt of attempts) {
      bars.push({
        key: `attempt-${attempt.number}`,
        label: `attempt ${attempt.number}`,
        start: attempt.startedAt,
        duration: attempt.durationMs,
        kind: 'attempt',
        tone: attempt.outcome === 'ok' ? 'ok' : attempt.outcome,
        detail: attempt.error ? `${attempt.error.code}: ${attempt.error.message}` : attempt.outcome,
        indent: true,
      });
    }
  }
  return bars;
}

/**
 * The call on a time axis: one bar per stage, and inside execute one bar per attempt with the
 * backoff waits between them. The axis picks round ticks for any total (µs to hours); tiny bars
 * keep a minimum width and every bar says its start offset and duration in words, on hover or
 * keyboard focus.
 */
export function Waterfall({
  stages,
  attempts,
  totalMs,
}: {
  stages: TraceStage[];
  attempts: Attempt[];
  totalMs: number | null;
}) {
  const bars = barsOf(stages, attempts);
  const end = Math.max(totalMs ?? 0, ...bars.map((b) => b.start + b.duration), 0.001);
  const ticks = axisTicks(end);
  const scale = Math.max(ticks.at(-1)!, end);
  const [active, setActive] = useState<string | null>(null);
  const pct = (ms: number) => `${Math.min(100, Math.max(0, (ms / scale) * 100))}%`;

  return (
    <figure className="rounded border border-line p-3" data-testid="waterfall">
      <figcaption className="sr-only">Timeline of the call's stages and attempts</figcaption>
      <div className="grid grid-cols-[8.5rem_1fr_6rem] items-center gap-x-2">
        <div />
        <div className="relative h-5 border-b border-line text-[10px] text-fg-muted" aria-hidden>
          {ticks.map((tick) => (
            <span
              key={tick}
              className="absolute bottom-0 -translate-x-1/2 whitespace-nowrap pb-0.5 tabular-nums first:translate-x-0 last:-translate-x-full"
              style={{ left: pct(tick) }}
            >
              {formatDuration(tick)}
            </span>
          ))}
        </div>
        <div />
        {bars.map((bar) => {
          const info = `${bar.label}: starts at +${formatDuration(bar.start)}, lasts ${formatDuration(bar.duration)}${bar.kind === 'stage' ? `, ${bar.tone}` : ''}${bar.detail ? ` — ${bar.detail}` : ''}`;
          const open = active === bar.key;
          return (
            <div key={bar.key} className="contents" data-testid={`waterfall-${bar.kind}`}>
              <div
                className={`truncate py-0.5 text-xs ${bar.indent ? 'pl-4 text-fg-muted' : 'font-medium'}`}
                title={bar.label}
              >
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
                  className={`absolute top-1 h-3 min-w-[3px] rounded-sm ${TONE[bar.tone]}`}
                  style={{ left: pct(bar.start), width: pct(bar.duration) }}
                  data-testid="waterfall-bar"
                />
                {open && (
                  <div
                    role="tooltip"
                    className="pointer-events-none absolute top-5 z-20 w-max max-w-md rounded border border-line bg-bg px-2 py-1 text-xs shadow-lg"
                    style={{ left: `min(${pct(bar.start)}, calc(100% - 16rem))` }}
                  >
                    <div className="font-medium">{bar.label}</div>
                    <div className="tabular-nums text-fg-muted">
                      start +{formatDuration(bar.start)} · duration {formatDuration(bar.duration)}
                    </div>
                    {bar.detail && <div className="mt-0.5 whitespace-pre-wrap break-words">{bar.detail}</div>}
                  </div>
                )}
              </div>
              <div className="text-right text-xs tabular-nums text-fg-muted">{formatDuration(bar.duration)}</div>
            </div>
          );
        })}
      </div>
    </figure>
  );
}
