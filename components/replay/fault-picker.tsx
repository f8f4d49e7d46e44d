'use client';

import { useId } from 'react';
import type { FaultKind } from '@/lib/executor/types';
import { FAULT_KIND_NAMES, FAULT_KINDS } from '@/lib/ui/fault-kinds';
import { type FieldIssue, issuesByPath } from '@/lib/ui/json-issues';
import { validateAgainstSchema } from '@/lib/ui/json-schema';
import type { ReplayFault } from '@/lib/ui/replay-api';
import { ObjectFields } from '../tools/schema-form';
import { defaultFaultParams, faultParamsSchema } from './fault-params-schema';

/** A fault of `kind` with its starting parameters. */
export function faultOf(kind: FaultKind): ReplayFault {
  return { kind, params: defaultFaultParams(kind) };
}

/**
 * A one-off fault for one replay: the kind, then its parameters in the schema form (the same form
 * as the playground's). `serverIssues` are the server's, with paths such as `fault.params.ms`.
 */
export function FaultPicker({
  fault,
  onFault,
  serverIssues,
}: {
  fault: ReplayFault;
  onFault: (fault: ReplayFault) => void;
  serverIssues: FieldIssue[];
}) {
  const id = useId();
  const kind = FAULT_KINDS[fault.kind as FaultKind];
  const schema = kind ? faultParamsSchema(fault.kind as FaultKind) : null;
  const local = schema ? validateAgainstSchema(schema, fault.params, `the ${fault.kind} fault`) : [];
  const server = serverIssues.map((issue) => ({ ...issue, path: issue.path.replace(/^fault\.(params\.?)?/, '') }));
  const byPath = issuesByPath([...server, ...local]);
  return (
    <fieldset className="flex flex-col gap-2 rounded border border-line p-2" data-testid="fault-picker">
      <legend className="px-1 text-xs font-medium">Fault for this replay only</legend>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={`${id}-kind`} className="text-xs text-fg-muted">
          Kind
        </label>
        <select
          id={`${id}-kind`}
          value={fault.kind}
          onChange={(event) => onFault(faultOf(event.target.value as FaultKind))}
          className="h-7 rounded border border-line bg-bg px-1.5 text-[13px]"
          data-testid="fault-kind"
        >
          {FAULT_KIND_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {kind && <span className="text-[11px] text-fg-muted">{kind.help}</span>}
      </div>
      {schema && kind.fields.length > 0 && (
        <ObjectFields
          schema={schema}
          value={fault.params}
          path={[]}
          issues={byPath}
          onChange={(params) => onFault({ ...fault, params: (params as Record<string, unknown>) ?? {} })}
        />
      )}
      {(byPath.get('') ?? []).map((issue) => (
        <p key={issue.message} className="text-xs text-red-700 dark:text-red-300">
          {issue.message}
        </p>
      ))}
    </fieldset>
  );
}
