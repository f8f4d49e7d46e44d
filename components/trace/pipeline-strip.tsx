import { ChevronRight, CircleDashed } from 'lucide-react';
import { type CallStatus, STAGE_NAMES, type StageName, type TraceStage } from '@/lib/executor/types';
import { formatDuration } from '@/lib/ui/format';
import { isUnfinished } from '@/lib/ui/live-trace';
import { CALL_STATUS_LOOK, STAGE_STATUS_LOOK } from '../status';

const PENDING_LOOK = {
  label: 'pending',
  Icon: CircleDashed,
  className: 'text-zinc-500 bg-bg border-dashed border-line dark:text-zinc-400',
};

/**
 * The six stages in order, each with its status (icon, word and colour) and duration. The stage in
 * progress (running, or waiting for approval) and a failed one are drawn heavier and say why (their
 * detail); a running stage's duration is its elapsed time so far (the caller adds it, see
 * `withElapsed`). Stages the call has not reached yet are "pending"; skipped ones show no duration.
 * The stage a cancellation stopped says "cancelled", not "failed": nothing went wrong there.
 */
export function PipelineStrip({
  stages,
  callStatus,
  cancelledStage = null,
}: {
  stages: TraceStage[];
  callStatus: CallStatus;
  /** The stage the call was cancelled in (its error's stage), if it was cancelled. */
  cancelledStage?: StageName | null;
}) {
  const unfinished = isUnfinished(callStatus);
  return (
    <ol
      className="grid grid-cols-2 gap-1.5 sm:grid-cols-3 lg:grid-cols-6"
      aria-label="Pipeline stages"
      data-testid="pipeline"
    >
      {STAGE_NAMES.map((name, index) => {
        const stage = stages.find((s) => s.name === name);
        const status =
          stage?.status === 'failed' && cancelledStage === name
            ? 'cancelled'
            : (stage?.status ?? (unfinished ? 'pending' : 'skipped'));
        const look =
          status === 'pending'
            ? PENDING_LOOK
            : status === 'cancelled'
              ? CALL_STATUS_LOOK.cancelled
              : STAGE_STATUS_LOOK[status];
        const current = status === 'running' || status === 'waiting';
        const loud = status === 'failed' || status === 'cancelled' || current;
        const spin = status === 'running' ? 'animate-spin' : '';
        return (
          <li
            key={name}
            data-testid="stage"
            data-stage={name}
            data-status={status}
            aria-current={current ? 'step' : undefined}
            className={`relative flex min-w-0 flex-col gap-0.5 rounded border px-2 py-1.5 ${look.className} ${loud ? 'border-2 shadow-sm' : ''}`}
          >
            <div className="flex items-center gap-1.5">
              <span className="text-[10px] tabular-nums opacity-60">{index + 1}</span>
              <span className="font-medium text-fg">{name}</span>
              <span className="ml-auto inline-flex items-center gap-1 text-xs">
                <look.Icon size={13} className={spin} aria-hidden />
                {look.label}
              </span>
            </div>
            <div className="text-xs tabular-nums text-fg-muted" data-testid="stage-duration">
              {!stage || status === 'skipped' ? '—' : `${formatDuration(stage.durationMs)}${current ? ' so far' : ''}`}
            </div>
            {stage?.detail && (
              <div
                className={`text-xs ${loud ? 'font-medium text-fg' : 'truncate text-fg-muted'}`}
                title={stage.detail}
                data-testid="stage-detail"
              >
                {stage.detail}
              </div>
            )}
            {index < STAGE_NAMES.length - 1 && (
              <ChevronRight
                size={12}
                className="absolute -right-[11px] top-3 hidden text-fg-muted lg:block"
                aria-hidden
              />
            )}
          </li>
        );
      })}
    </ol>
  );
}
