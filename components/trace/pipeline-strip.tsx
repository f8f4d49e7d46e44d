import { ChevronRight, CircleDashed } from 'lucide-react';
import { type CallStatus, STAGE_NAMES, type TraceStage } from '@/lib/executor/types';
import { formatDuration } from '@/lib/ui/format';
import { STAGE_STATUS_LOOK } from '../status';

/**
 * The six stages in order, each with its status (icon, word and colour) and duration. A failed or
 * waiting stage is drawn heavier and says why (its detail). Stages not reached yet while the call
 * runs show as waiting.
 */
export function PipelineStrip({ stages, callStatus }: { stages: TraceStage[]; callStatus: CallStatus }) {
  const unfinished = callStatus === 'running' || callStatus === 'awaiting_approval';
  return (
    <ol
      className="grid grid-cols-2 gap-1.5 sm:grid-cols-3 lg:grid-cols-6"
      aria-label="Pipeline stages"
      data-testid="pipeline"
    >
      {STAGE_NAMES.map((name, index) => {
        const stage = stages.find((s) => s.name === name);
        const status = stage?.status ?? (unfinished ? 'waiting' : 'skipped');
        const look = STAGE_STATUS_LOOK[status];
        const loud = status === 'failed' || status === 'waiting';
        const Icon = stage ? look.Icon : CircleDashed;
        return (
          <li
            key={name}
            data-testid="stage"
            data-stage={name}
            data-status={status}
            aria-current={loud ? 'step' : undefined}
            className={`relative flex min-w-0 flex-col gap-0.5 rounded border px-2 py-1.5 ${look.className} ${loud ? 'border-2 shadow-sm' : ''}`}
          >
            <div className="flex items-center gap-1.5">
              <span className="text-[10px] tabular-nums opacity-60">{index + 1}</span>
              <span className="font-medium text-fg">{name}</span>
              <span className="ml-auto inline-flex items-center gap-1 text-xs">
                <Icon size={13} aria-hidden />
                {stage ? look.label : unfinished ? 'pending' : look.label}
              </span>
            </div>
            <div className="text-xs tabular-nums text-fg-muted">{stage ? formatDuration(stage.durationMs) : '—'}</div>
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
