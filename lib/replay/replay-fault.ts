import type { StoredTrace } from '../db/trace-store';
import type { ExecutionContext, FaultSpec } from '../executor/types';
import { type OneOffFaultJson, parseFaultSpec } from '../faults/rule-schema';

/**
 * The metadata key under which a replay keeps its one-off fault, as the API took it
 * (`{ kind, params }`): the trace shows which fault its replay ran with, and a replay still
 * awaiting approval when the server stops runs with it after the restart.
 */
export const REPLAY_FAULT_METADATA = 'replay_fault';

/** A replay's one-off fault: the executor's form and the API's. */
export interface ReplayFault {
  spec: FaultSpec;
  json: OneOffFaultJson;
}

/** What a replay's execution context gets for its one-off fault: the fault, and the metadata keeping it. */
export function replayFaultContext(fault: ReplayFault | undefined): Pick<ExecutionContext, 'fault' | 'metadata'> {
  return fault ? { fault: fault.spec, metadata: { [REPLAY_FAULT_METADATA]: fault.json } } : {};
}

/** The one-off fault a recorded replay was given, checked again; undefined for other calls. */
export function replayFaultOf(record: Pick<StoredTrace, 'replayOf' | 'metadata'>): FaultSpec | undefined {
  const json = record.metadata[REPLAY_FAULT_METADATA];
  if (record.replayOf === null || json === undefined) return undefined;
  const parsed = parseFaultSpec(json);
  return parsed.ok ? parsed.spec : undefined;
}
