import { CallCancelled, cancelledError } from './call-cancellation';
import type { Clock } from './clock';
import { errorData } from './errors';
import type { LiveCall } from './live-call';
import { type ApprovalDecision, type Approver, decidePolicy, type PolicyResolver } from './ports';
import type { Redactor } from './redact';
import { sideEffectOf } from './side-effect';
import type { StageRecorder } from './stage-recorder';
import type {
  AnyTool,
  ApprovalRecord,
  CancelReason,
  PermissionRefusal,
  SideEffect,
  ToolErrorData,
  TraceSink,
} from './types';
import { validateInput } from './validate-input';

interface PermissionCall {
  tool: AnyTool;
  input: unknown;
  sideEffect: SideEffect;
  live: LiveCall;
  stages: StageRecorder;
}

export type PermissionOutcome = { ok: true; input: unknown } | { ok: false; error: ToolErrorData };

export interface PermissionDeps {
  approver: Approver;
  policyOf: PolicyResolver;
  redactor: Redactor;
  sink: TraceSink;
  clock: Clock;
  /** The config file the policies come from, named in denials; null when none is in use. */
  configFile: string | null;
  /** How long a call waits for a decision before it ends APPROVAL_TIMEOUT; null: for ever. */
  approvalTimeoutMs: number | null;
}

/** The tool's own check on its input; a check that throws refuses the call too. */
function checkTool(tool: AnyTool, input: unknown): PermissionRefusal | null {
  if (!tool.checkPermission) return null;
  try {
    return tool.checkPermission(input) ?? null;
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return {
      check: `${tool.name} permission check`,
      message: `The permission check of ${tool.name} failed, so the call was refused: ${message}`,
      details: { cause: message },
    };
  }
}

function refusalError(refusal: PermissionRefusal): ToolErrorData {
  return errorData('PERMISSION_DENIED', refusal.message, {
    ...(refusal.hint ? { hint: refusal.hint } : {}),
    details: { check: refusal.check, ...refusal.details },
    stage: 'permission',
  });
}

/**
 * Stage 3: may this call run?
 * 1. The tool's own check on the input (shell allowlist, HTTP hosts, paths): a refusal is
 *    PERMISSION_DENIED here, never at the execute stage.
 * 2. The policy: `deny` refuses, `allow` runs, `ask` waits (`awaiting_approval`) for the
 *    approver, whose request signal fires if the call is cancelled meanwhile. Edited arguments
 *    are validated and checked again.
 * Synchronous unless it waits for approval: the hot path makes no promise.
 */
export function runPermissionStage(
  deps: PermissionDeps,
  call: PermissionCall,
): PermissionOutcome | Promise<PermissionOutcome> {
  const { tool, stages } = call;
  const start = stages.lastAt;
  const refusal = checkTool(tool, call.input);
  if (refusal) {
    stages.add('permission', start, 'failed', `${refusal.check}: ${refusal.message}`);
    return { ok: false, error: refusalError(refusal) };
  }
  const record = call.live.record;
  const decision = decidePolicy(deps.policyOf, {
    tool: tool.name,
    input: call.input,
    sideEffect: call.sideEffect,
    actor: record.actor,
    sessionId: record.sessionId,
    principal: record.principal,
  });
  const { policy, rule } = decision;
  // A call taken up after a restart was waiting for a person: it runs only if one approves it,
  // whatever the rules say now (unless they deny it).
  const resumed = record.approval !== null;
  if (policy === 'allow' && !resumed) {
    stages.add('permission', start, 'ok', rule);
    return { ok: true, input: call.input };
  }
  if (policy === 'deny') {
    const where = decision.source ? `; set in ${decision.source}` : '';
    stages.add('permission', start, 'failed', `${rule}${where}`);
    return {
      ok: false,
      error: errorData('PERMISSION_DENIED', `The policy denies this call to ${tool.name} (${rule}${where}).`, {
        details: { policy, rule, ...(decision.source ? { source: decision.source } : {}) },
        stage: 'permission',
      }),
    };
  }

  return awaitApproval(deps, call, resumed && policy === 'allow' ? (record.approval?.rule ?? rule) : rule);
}

/** The `ask` branch: the call waits, recorded as `awaiting_approval`, for the approver's decision. */
async function awaitApproval(deps: PermissionDeps, call: PermissionCall, rule: string): Promise<PermissionOutcome> {
  const { tool, live, stages } = call;
  const record = live.record;
  // A call taken up after a restart keeps its wait: requested then, expiring when it would have.
  const resumed = record.approval;
  const requestedAt = resumed?.requestedAt ?? deps.clock.epochMs();
  const expiresAt = resumed
    ? resumed.expiresAt
    : deps.approvalTimeoutMs === null
      ? null
      : requestedAt + deps.approvalTimeoutMs;
  const approval: ApprovalRecord = {
    rule,
    requestedAt,
    expiresAt,
    decision: null,
    by: null,
    decidedAt: null,
    reason: null,
    ruleCreated: null,
  };
  record.approval = approval;
  stages.begin('permission', 'waiting', `awaiting approval (${rule})`);
  record.status = 'awaiting_approval';
  try {
    await deps.sink.update(record);
    live.published();
  } catch (cause) {
    console.error(`[toolscope] could not record pending approval ${record.id}:`, cause);
  }
  live.awaitingApproval();
  const answer = await askApprover(deps, call, approval);
  approval.decidedAt = deps.clock.epochMs();
  record.status = 'running';

  if ('cancelled' in answer) {
    approval.decision = 'cancelled';
    approval.by = answer.cancelled.by;
    if (answer.cancelled.principal) approval.decidedBy = answer.cancelled.principal;
    approval.reason = answer.cancelled.reason ?? null;
    const error = cancelledError(answer.cancelled, 'permission');
    stages.end('failed', error.message);
    return { ok: false, error };
  }
  if ('expired' in answer) {
    approval.decision = 'expired';
    const waited = formatWait(deps.approvalTimeoutMs ?? 0);
    const message = `No one approved or denied this call to ${tool.name} within ${waited}, so it was not run.`;
    stages.end('failed', `approval expired after ${waited}`);
    return {
      ok: false,
      error: errorData('APPROVAL_TIMEOUT', message, { details: { rule, expiresAt }, stage: 'permission' }),
    };
  }
  const decision = answer.decision;
  approval.by = decision.by ?? null;
  if (decision.byPrincipal) approval.decidedBy = decision.byPrincipal;
  approval.reason = decision.reason ?? null;
  if (!decision.approved) {
    approval.decision = decision.timedOut ? 'expired' : 'denied';
    const error = decision.timedOut
      ? errorData('APPROVAL_TIMEOUT', decision.reason, { details: { rule }, stage: 'permission' })
      : errorData('PERMISSION_DENIED', deniedMessage(tool.name, decision), {
          details: { policy: 'ask', rule, ...(decision.by ? { by: decision.by } : {}), reason: decision.reason },
          stage: 'permission',
        });
    stages.end(
      'failed',
      decision.timedOut ? decision.reason : `denied${decision.by ? ` by ${decision.by}` : ''}: ${decision.reason}`,
    );
    return { ok: false, error };
  }
  approval.decision = 'approved';
  approval.ruleCreated = decision.ruleCreated ?? null;

  let input = call.input;
  if (decision.input !== undefined) {
    const edited = applyEdit(deps, call, decision.input);
    if (!edited.ok) {
      stages.end('failed', edited.error.message);
      return { ok: false, error: edited.error };
    }
    input = edited.input;
  }
  // The decision and `running` are on disk before the tool can act: a crash from here on leaves
  // the call `interrupted`, never pending again (it might have run).
  try {
    await deps.sink.update(record);
  } catch (cause) {
    const error = errorData('TRACE_UNAVAILABLE', 'Toolscope could not record the approval, so the call was not run.', {
      details: { cause: String(cause) },
      stage: 'permission',
    });
    stages.end('failed', error.message);
    return { ok: false, error };
  }
  const edits = decision.input === undefined ? '' : ' with edited arguments';
  stages.end('ok', `approved${decision.by ? ` by ${decision.by}` : ''}${edits} (${rule})`);
  return { ok: true, input };
}

/** What the model reads when a person denied its call: who, and their reason, so it can adapt. */
function deniedMessage(toolName: string, decision: { reason: string; by?: string }): string {
  return `The call to ${toolName} was denied${decision.by ? ` by ${decision.by}` : ''}: ${decision.reason}`;
}

/** `12 min`, `30 s`: how long an approval was waited for. */
function formatWait(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

/**
 * Edited arguments from the approver: validated again, recorded beside the original (redacted,
 * and sealed raw), the side effect recomputed from them, the tool's check and the deny rules run
 * again — what runs is what the trace says ran.
 */
function applyEdit(
  deps: PermissionDeps,
  call: PermissionCall,
  editedInput: unknown,
): { ok: true; input: unknown } | { ok: false; error: ToolErrorData } {
  const { tool, live } = call;
  const record = live.record;
  const raw = JSON.stringify(editedInput);
  const edited = validateInput(tool.name, tool.inputSchema, editedInput, raw.length);
  if (!edited.ok) return { ok: false, error: { ...edited.error, stage: 'permission' } };
  const redacted = deps.redactor.redact(editedInput, tool.sensitivePaths);
  record.editedArguments = redacted.value;
  record.rawEditedArguments = raw;
  live.secrets = [...live.secrets, ...redacted.secrets];
  const sideEffect = sideEffectOf(tool, edited.value);
  record.sideEffect = sideEffect;
  const refusal = checkTool(tool, edited.value);
  if (refusal) return { ok: false, error: refusalError(refusal) };
  const policy = decidePolicy(deps.policyOf, {
    tool: tool.name,
    input: edited.value,
    sideEffect,
    actor: record.actor,
    sessionId: record.sessionId,
    principal: record.principal,
  });
  if (policy.policy === 'deny') {
    const message = `The edited arguments are denied by the policy (${policy.rule}), so the call was not run.`;
    return {
      ok: false,
      error: errorData('PERMISSION_DENIED', message, {
        details: { policy: 'deny', rule: policy.rule },
        stage: 'permission',
      }),
    };
  }
  return { ok: true, input: edited.value };
}

type ApproverAnswer = { decision: ApprovalDecision } | { cancelled: CancelReason } | { expired: true };

/**
 * Asks the approver. The wait ends with the decision, with the call's cancellation (the
 * request's signal aborts), or at `expiresAt` on the executor's clock (the signal aborts with an
 * `ApprovalExpired`).
 */
function askApprover(deps: PermissionDeps, call: PermissionCall, approval: ApprovalRecord): Promise<ApproverAnswer> {
  const { live, tool } = call;
  if (live.cancelReason) return Promise.resolve({ cancelled: live.cancelReason });
  const controller = new AbortController();
  const record = live.record;
  return new Promise((resolve) => {
    let done = false;
    let timer: unknown;
    const finish = (value: ApproverAnswer) => {
      if (done) return;
      done = true;
      if (timer !== undefined) deps.clock.clearTimeout(timer);
      live.onCancel(null);
      resolve(value);
    };
    live.onCancel((reason) => {
      controller.abort(new CallCancelled(reason));
      finish({ cancelled: reason });
    });
    if (approval.expiresAt !== null) {
      timer = deps.clock.setTimeout(
        () => {
          controller.abort(new ApprovalExpired(record.id));
          finish({ expired: true });
        },
        Math.max(0, approval.expiresAt - deps.clock.epochMs()),
      );
    }
    Promise.resolve()
      .then(() =>
        deps.approver.request({
          traceId: record.id,
          toolCallId: record.toolCallId,
          sessionId: record.sessionId,
          actor: record.actor,
          principal: record.principal,
          tool: tool.name,
          sideEffect: call.sideEffect,
          arguments: record.arguments,
          input: call.input,
          rule: approval.rule,
          requestedAt: approval.requestedAt,
          expiresAt: approval.expiresAt,
          validate: (input) => {
            const checked = validateInput(tool.name, tool.inputSchema, input, JSON.stringify(input)?.length ?? 0);
            return checked.ok ? { ok: true } : { ok: false, error: checked.error };
          },
          signal: controller.signal,
        }),
      )
      .then(
        (decision) => finish({ decision }),
        (cause: unknown) => finish({ decision: { approved: false, reason: `the approver failed: ${String(cause)}` } }),
      );
  });
}

/** The reason an approval request's signal aborts with when its time is up. */
export class ApprovalExpired extends Error {
  override readonly name = 'ApprovalExpired';
  constructor(readonly traceId: string) {
    super(`The approval of ${traceId} expired.`);
  }
}
