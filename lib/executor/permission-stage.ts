import { CallCancelled, cancelledError } from './call-cancellation';
import type { Clock } from './clock';
import { errorData } from './errors';
import type { LiveCall } from './live-call';
import { type ApprovalDecision, type Approver, decidePolicy, type PolicyResolver } from './ports';
import type { Redactor } from './redact';
import type { StageRecorder } from './stage-recorder';
import type { AnyTool, CancelReason, PermissionRefusal, SideEffect, ToolErrorData, TraceSink } from './types';
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
  });
  const { policy, rule } = decision;
  if (policy === 'allow') {
    stages.add('permission', start, 'ok', rule);
    return { ok: true, input: call.input };
  }
  if (policy === 'deny') {
    const where = deps.configFile ? `; set in ${deps.configFile}` : '';
    stages.add('permission', start, 'failed', `${rule}${where}`);
    return {
      ok: false,
      error: errorData('PERMISSION_DENIED', `The policy denies this call to ${tool.name} (${rule}${where}).`, {
        details: { policy, rule, ...(deps.configFile ? { configFile: deps.configFile } : {}) },
        stage: 'permission',
      }),
    };
  }

  return awaitApproval(deps, call, rule);
}

/** The `ask` branch: the call waits, recorded as `awaiting_approval`, for the approver's decision. */
async function awaitApproval(deps: PermissionDeps, call: PermissionCall, rule: string): Promise<PermissionOutcome> {
  const { tool, live, stages } = call;
  const record = live.record;
  stages.begin('permission', 'waiting', `awaiting approval (${rule})`);
  record.status = 'awaiting_approval';
  try {
    await deps.sink.update(record);
    live.published();
  } catch (cause) {
    console.error(`[toolscope] could not record pending approval ${record.id}:`, cause);
  }
  const decision = await askApprover(deps.approver, call, rule);
  record.status = 'running';
  if ('cancelled' in decision) {
    const error = cancelledError(decision.cancelled, 'permission');
    stages.end('failed', error.message);
    return { ok: false, error };
  }
  if (!decision.approved) {
    const by = decision.by ? { by: decision.by } : undefined;
    const error = decision.timedOut
      ? errorData('APPROVAL_TIMEOUT', decision.reason, { details: by, stage: 'permission' })
      : errorData('PERMISSION_DENIED', decision.reason, {
          details: { policy: 'ask', rule, ...by },
          stage: 'permission',
        });
    stages.end('failed', decision.reason);
    return { ok: false, error };
  }
  let input = call.input;
  if (decision.input !== undefined) {
    const edited = validateInput(tool.name, tool.inputSchema, decision.input);
    if (!edited.ok) {
      stages.end('failed', 'edited arguments are invalid');
      return { ok: false, error: { ...edited.error, stage: 'permission' } };
    }
    const redactedEdit = deps.redactor.redact(decision.input, tool.sensitivePaths);
    record.metadata = { ...record.metadata, editedArguments: redactedEdit.value };
    live.secrets = [...live.secrets, ...redactedEdit.secrets];
    const editRefusal = checkTool(tool, edited.value);
    if (editRefusal) {
      stages.end('failed', `${editRefusal.check}: ${editRefusal.message}`);
      return { ok: false, error: refusalError(editRefusal) };
    }
    input = edited.value;
  }
  stages.end('ok', `approved${decision.by ? ` by ${decision.by}` : ''}`);
  return { ok: true, input };
}

/** Asks the approver; a cancellation of the call aborts the request's signal and ends the wait. */
function askApprover(
  approver: Approver,
  call: { tool: AnyTool; input: unknown; sideEffect: SideEffect; live: LiveCall },
  rule: string,
): Promise<ApprovalDecision | { cancelled: CancelReason }> {
  const { live } = call;
  if (live.cancelReason) return Promise.resolve({ cancelled: live.cancelReason });
  const controller = new AbortController();
  const record = live.record;
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: ApprovalDecision | { cancelled: CancelReason }) => {
      if (done) return;
      done = true;
      live.onCancel(null);
      resolve(value);
    };
    live.onCancel((reason) => {
      controller.abort(new CallCancelled(reason));
      finish({ cancelled: reason });
    });
    Promise.resolve()
      .then(() =>
        approver.request({
          traceId: record.id,
          toolCallId: record.toolCallId,
          sessionId: record.sessionId,
          tool: call.tool.name,
          sideEffect: call.sideEffect,
          arguments: record.arguments,
          input: call.input,
          rule,
          signal: controller.signal,
        }),
      )
      .then(finish, (cause: unknown) => finish({ approved: false, reason: `The approver failed: ${String(cause)}` }));
  });
}
