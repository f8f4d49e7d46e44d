import { keepRedacted } from '../approvals/keep-redacted';
import type { SealedArguments, TraceStore } from '../db/trace-store';
import { isVaultError } from '../db/vault';
import { parseArguments } from '../executor/parse-arguments';
import type { AnyTool, ExecutionContext, ToolCall } from '../executor/types';
import { type ReplayFault, replayFaultContext } from './replay-fault';
import { reserveReplaySession } from './replay-sessions';
import { keptSecretPaths, secretDestinationIssues } from './secret-destination';

/** A field of a request body that is wrong, named as the API names it (`arguments.headers.authorization`). */
export interface BodyIssue {
  path: string;
  message: string;
}

/** Who a replay is recorded as. */
export const REPLAY_ACTOR = 'replay';

/** A replay ready to run: the call and its context. */
export interface ReplayPlan {
  call: ToolCall;
  ctx: ExecutionContext;
}

export type ReplayPlanOutcome =
  | { ok: true; plan: ReplayPlan }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'invalid_arguments'; message: string; issues: BodyIssue[] }
  /** The edit keeps a recorded secret but changes where the call sends it. */
  | { ok: false; reason: 'secret_destination_changed'; message: string; issues: BodyIssue[] }
  /** The sealed arguments do not open (the vault key is missing, or another one): nothing to run. */
  | { ok: false; reason: 'vault_key_mismatch'; message: string };

export interface ReplayOptions {
  /**
   * Edited arguments (an object, or its JSON text) instead of the recorded ones. Values left as
   * the trace shows them masked (`[REDACTED]`) are kept as recorded.
   */
  arguments?: unknown;
  /** A fault for this replay only. */
  fault?: ReplayFault;
  /**
   * The tools as registered, for the destination a tool declares (see `secret-destination.ts`);
   * without them every tool counts as declaring none.
   */
  tools?: { get(name: string): AnyTool | undefined };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Plans the replay of trace `id`: the same tool, recorded as actor `replay` and as a replay of
 * `id`, in a session of its own — `<session>~replay-<n>` (see `reserveReplaySession`), never the
 * recorded session, whose run stays the run that happened; none for a call that had none. Its
 * arguments are the sealed raw arguments, exactly as the model sent them (not an approver's edit),
 * or `options.arguments` with every masked value the edit left alone given back its recorded
 * value — only when the edit keeps the call's destination (see `secretDestinationIssues`): a
 * recorded secret is never sent where it was not. What is opened here never leaves the server: it
 * goes to the executor, which records it sealed and shows it redacted.
 */
export function planReplay(store: TraceStore, id: string, options: ReplayOptions = {}): ReplayPlanOutcome {
  const trace = store.get(id);
  let sealed: SealedArguments | null = null;
  try {
    sealed = trace && store.openSealedArguments(id);
  } catch (error) {
    if (!isVaultError(error)) throw error;
    return { ok: false, reason: 'vault_key_mismatch', message: vaultKeyMismatchMessage(id, error.message) };
  }
  if (!trace || !sealed) return { ok: false, reason: 'not_found' };
  // The session is reserved only for a replay that will run (a refused edit takes no number).
  const ctxOf = (): ExecutionContext => ({
    sessionId: trace.sessionId === null ? null : reserveReplaySession(store, trace.sessionId),
    actor: REPLAY_ACTOR,
    replayOf: trace.id,
    ...replayFaultContext(options.fault),
  });
  if (options.arguments === undefined) {
    return { ok: true, plan: { call: { name: trace.tool, arguments: sealed.rawArguments }, ctx: ctxOf() } };
  }
  const edited = editedArguments(options.arguments);
  if (!edited.ok) return edited;
  const recorded = parseArguments(sealed.rawArguments);
  const recordedValue = recorded.ok ? recorded.value : undefined;
  const kept = keepRedacted(edited.value, trace.arguments, recordedValue);
  if (!kept.ok) {
    const issues = kept.issues.map((issue) => ({ path: `arguments.${issue.path}`, message: issue.message }));
    return { ok: false, reason: 'invalid_arguments', message: joinIssues(issues), issues };
  }
  const moved = secretDestinationIssues(
    options.tools?.get(trace.tool),
    recordedValue,
    kept.value,
    keptSecretPaths(edited.value),
  );
  if (moved.length > 0)
    return { ok: false, reason: 'secret_destination_changed', message: joinIssues(moved), issues: moved };
  return { ok: true, plan: { call: { name: trace.tool, arguments: kept.value }, ctx: ctxOf() } };
}

/** Why a call cannot be replayed when its sealed arguments do not open. */
export function vaultKeyMismatchMessage(id: string, cause: string): string {
  return (
    `The call ${id} cannot be replayed: Toolscope could not open the arguments it sealed for it (${cause}). ` +
    'Restoring the vault key that sealed them makes it replayable again; GET /api/v1/health says what happened to the key.'
  );
}

const joinIssues = (issues: BodyIssue[]) => issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');

function editedArguments(
  value: unknown,
): { ok: true; value: Record<string, unknown> } | Extract<ReplayPlanOutcome, { reason: 'invalid_arguments' }> {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      const message = `is not valid JSON: ${(error as Error).message}`;
      return invalid(message);
    }
  }
  return isObject(parsed) ? { ok: true, value: parsed } : invalid('must be a JSON object (or its JSON text)');
}

function invalid(message: string): Extract<ReplayPlanOutcome, { reason: 'invalid_arguments' }> {
  return {
    ok: false,
    reason: 'invalid_arguments',
    message: `arguments: ${message}`,
    issues: [{ path: 'arguments', message }],
  };
}
