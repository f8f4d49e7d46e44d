'use client';

import { ChevronDown, ChevronRight, Repeat, TriangleAlert } from 'lucide-react';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { groupFindings } from '@/lib/api/session-findings';
import type { SessionDetailJson } from '@/lib/api/sessions';
import { VisibleText } from '../visible-text';

type FindingJson = SessionDetailJson['findings'][number];

/** A kind with at most this many findings opens expanded; more (a big run's wall of loops) opens as its line only. */
const OPEN_UP_TO = 3;

const NONE: ReadonlySet<string> = new Set();

/**
 * A session's findings, one line per kind with its count ("Repeated calls: 34 groups"),
 * expandable to the findings behind it, each with links to its calls. Pointing at a line or a
 * finding tells `onHighlight` which calls to outline on the timeline.
 */
export function SessionFindings({
  findings,
  calls,
  onHighlight,
}: {
  findings: readonly FindingJson[];
  calls: SessionDetailJson['calls'];
  onHighlight: (ids: ReadonlySet<string>) => void;
}) {
  const groups = useMemo(() => groupFindings(findings), [findings]);
  const seqOf = useMemo(() => new Map(calls.map((call) => [call.id, call.session_seq])), [calls]);
  const [toggled, setToggled] = useState<Partial<Record<FindingJson['kind'], boolean>>>({});
  if (groups.length === 0) return null;
  return (
    <section aria-labelledby="findings-title" className="rounded border border-fuchsia-300 p-2 dark:border-fuchsia-800">
      <h2 id="findings-title" className="mb-1 flex items-center gap-1 text-xs font-semibold">
        <TriangleAlert size={13} aria-hidden className="text-fuchsia-600 dark:text-fuchsia-400" /> Findings
      </h2>
      <ul className="flex flex-col gap-1 text-xs">
        {groups.map((group) => {
          const open = toggled[group.kind] ?? group.findings.length <= OPEN_UP_TO;
          const groupIds = new Set(group.findings.flatMap((finding) => finding.trace_ids));
          const listId = `findings-${group.kind}`;
          return (
            <li
              key={group.kind}
              data-testid="finding-group"
              data-kind={group.kind}
              data-count={group.findings.length}
              data-open={open}
              onPointerEnter={() => onHighlight(groupIds)}
              onPointerLeave={() => onHighlight(NONE)}
            >
              <button
                type="button"
                aria-expanded={open}
                aria-controls={open ? listId : undefined}
                onClick={() => setToggled((now) => ({ ...now, [group.kind]: !open }))}
                onFocus={() => onHighlight(groupIds)}
                onBlur={() => onHighlight(NONE)}
                className="inline-flex items-center gap-1 rounded px-0.5 hover:bg-muted"
                data-testid="finding-group-toggle"
              >
                {open ? <ChevronDown size={12} aria-hidden /> : <ChevronRight size={12} aria-hidden />}
                <Repeat size={12} aria-hidden className="text-fuchsia-600 dark:text-fuchsia-400" />
                <span className="font-medium">{group.label}</span>
                <span className="text-fg-muted tabular-nums">
                  · {group.calls} call{group.calls === 1 ? '' : 's'}
                </span>
              </button>
              {open && (
                <ul id={listId} className="ml-5 mt-0.5 flex flex-col gap-0.5">
                  {group.findings.map((finding) => (
                    <FindingLine
                      key={`${finding.kind}:${finding.trace_ids[0]}`}
                      finding={finding}
                      seqOf={seqOf}
                      onHighlight={onHighlight}
                      onLeave={() => onHighlight(groupIds)}
                    />
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function FindingLine({
  finding,
  seqOf,
  onHighlight,
  onLeave,
}: {
  finding: FindingJson;
  seqOf: ReadonlyMap<string, number | null>;
  onHighlight: (ids: ReadonlySet<string>) => void;
  onLeave: () => void;
}) {
  const ids = new Set(finding.trace_ids);
  return (
    <li
      data-testid="finding"
      data-kind={finding.kind}
      data-count={finding.count}
      onPointerEnter={() => onHighlight(ids)}
      onPointerLeave={onLeave}
      className="flex flex-wrap items-center gap-x-2"
    >
      <span>
        <span className="font-mono">
          <VisibleText text={finding.tool} />
        </span>{' '}
        {finding.kind === 'repeated_call' ? (
          <>
            called <strong className="tabular-nums">{finding.count}×</strong> with the same arguments
          </>
        ) : (
          <>
            failed <strong className="tabular-nums">{finding.count}×</strong>
          </>
        )}
      </span>
      <span className="flex flex-wrap gap-1">
        {finding.trace_ids.map((traceId) => (
          <Link
            key={traceId}
            href={`/traces/${traceId}`}
            className="font-mono text-accent hover:underline"
            onFocus={() => onHighlight(ids)}
            onBlur={() => onHighlight(NONE)}
          >
            #{seqOf.get(traceId) ?? '?'}
          </Link>
        ))}
      </span>
    </li>
  );
}
