import { errorData } from '../executor/errors';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../executor/ports';
import type { AnyTool, CallPrincipal, SideEffect, ToolErrorData } from '../executor/types';
import type { FieldIssue } from '../executor/validate-input';
import { isRuleShadowedError } from '../policy/rule-shadowed';
import { keptSecretPaths, secretDestinationIssues } from '../replay/secret-destination';
import { keepRedacted } from './keep-redacted';

/** A call waiting for a person, as the approvals page and `GET /api/v1/approvals` show it. */
export interface PendingApproval {
  traceId: string;
  toolCallId: string;
  sessionId: string | null;
  actor: string;
  /** Who made the call; null for calls made before principals. */
  principal: CallPrincipal | null;
  tool: string;
  sideEffect: SideEffect;
  /** Redacted: secrets stay `[REDACTED]`. */
  arguments: unknown;
  /** The rule or default that asked. */
  rule: string;
  /** Epoch ms. */
  requestedAt: number;
  /** Epoch ms; null when the wait never expires. */
  expiresAt: number | null;
}

/** What a person decides, as `POST /api/v1/approvals/:trace_id` takes it. */
export interface DecisionInput {
  decision: 'approve' | 'deny';
  /** Reaches the model with a denial; kept in the audit with an approval. */
  reason?: string;
  /** Edited arguments to run instead (approve only); validated against the tool's schema first. */
  arguments?: unknown;
  /** Approve, and allow such calls from now on: the tool, or the tool with this specifier; in this session only if `session`. */
  always?: { specifier?: string; session?: boolean };
}

export type DecideOutcome =
  | { ok: true; ruleCreated: string | null }
  /** Edited arguments that do not fit the schema: the call stays pending. */
  | { ok: false; reason: 'invalid_arguments'; error: ToolErrorData }
  /** "Always allow" with a rule that cannot be made (a bad specifier): the call stays pending. */
  | { ok: false; reason: 'invalid_rule'; message: string }
  /** "Always allow" with a rule an ask or deny rule would shadow (`shadowedBy`): the call stays pending. */
  | { ok: false; reason: 'rule_shadowed'; message: string; shadowedBy: string }
  /** No call with this trace id is waiting (unknown, or already decided). */
  | { ok: false; reason: 'not_pending' }
  /** The one deciding made the call: nobody approves or denies their own call. */
  | { ok: false; reason: 'self_approval' };

export interface ApprovalQueueOptions {
  /** Finds a tool by name (the registry's `get`): what an edit may change of a call holding a secret. */
  tools?: (name: string) => AnyTool | undefined;
  /**
   * Creates an allow rule for "always allow" and returns it as the Policy page shows it
   * (`allow write_file(notes/**) [session s-1]`); throws with a message a person can act on when
   * the rule is invalid, and a `RuleShadowedError` when an ask or deny rule would keep it from
   * ever deciding `call` (the call it is made for, as it would run). Without it, "always" is refused.
   */
  allowFromNowOn?: (rule: {
    tool: string;
    specifier: string | null;
    session: string | null;
    call: { input: unknown; sessionId: string | null; sideEffect: SideEffect; actor: string };
  }) => string;
}

export interface ApprovalQueue extends Approver {
  /** Calls waiting, oldest first. */
  list(): PendingApproval[];
  get(traceId: string): PendingApproval | null;
  /**
   * Decides a waiting call as `by`, who must not be the call's own principal (local mode's one
   * person excepted); the executor records the decision and goes on.
   */
  decide(traceId: string, input: DecisionInput, by: CallPrincipal): DecideOutcome;
  /** Called whenever a call starts or stops waiting. */
  subscribe(listener: () => void): () => void;
  readonly size: number;
}

interface Waiting {
  pending: PendingApproval;
  request: ApprovalRequest;
  answer(decision: ApprovalDecision): void;
}

/**
 * The approvals queue: the executor's approver for `ask` calls, held in memory by trace id.
 * Each call is recorded `awaiting_approval` (with its rule and expiry) before it is asked, and a
 * restart takes pending calls up again through the executor (`resume`), so this queue is the
 * complete list. A call leaves the queue when it is decided, cancelled or expires (its request's
 * signal aborts). Deciding is synchronous; the executor then records the decision durably
 * before anything runs.
 */
export function createApprovalQueue(options: ApprovalQueueOptions = {}): ApprovalQueue {
  const waiting = new Map<string, Waiting>();
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        console.error('[toolscope] an approvals listener failed:', error);
      }
    }
  };
  const leave = (traceId: string, entry: Waiting) => {
    if (waiting.get(traceId) !== entry) return;
    waiting.delete(traceId);
    changed();
  };

  return {
    request(request) {
      return new Promise<ApprovalDecision>((resolve) => {
        const entry: Waiting = {
          request,
          pending: {
            traceId: request.traceId,
            toolCallId: request.toolCallId,
            sessionId: request.sessionId,
            actor: request.actor,
            principal: request.principal,
            tool: request.tool,
            sideEffect: request.sideEffect,
            arguments: request.arguments,
            rule: request.rule,
            requestedAt: request.requestedAt,
            expiresAt: request.expiresAt,
          },
          answer: (decision) => {
            leave(request.traceId, entry);
            resolve(decision);
          },
        };
        if (request.signal.aborted) return;
        // Cancelled or expired: the executor has ended the wait; the call just leaves the queue.
        request.signal.addEventListener('abort', () => leave(request.traceId, entry), { once: true });
        waiting.set(request.traceId, entry);
        changed();
      });
    },
    list: () => [...waiting.values()].map((entry) => entry.pending).sort((a, b) => a.requestedAt - b.requestedAt),
    get: (traceId) => waiting.get(traceId)?.pending ?? null,
    decide(traceId, input, by) {
      const entry = waiting.get(traceId);
      if (!entry) return { ok: false, reason: 'not_pending' };
      if (isSelfApproval(entry.pending.principal, by)) return { ok: false, reason: 'self_approval' };
      const byPrincipal: CallPrincipal = { id: by.id, name: by.name, role: by.role };
      if (input.decision === 'deny') {
        const reason = input.reason?.trim() || 'no reason was given';
        entry.answer({ approved: false, reason, by: by.name, byPrincipal });
        return { ok: true, ruleCreated: null };
      }
      let edited = input.arguments;
      if (edited !== undefined) {
        // The form showed redacted values: a secret left as shown keeps its recorded value.
        const kept = keepRedacted(edited, entry.pending.arguments, entry.request.input);
        if (!kept.ok) return { ok: false, reason: 'invalid_arguments', error: maskedSecretError(kept.issues) };
        // A recorded secret the edit kept goes only where the call was sending it.
        const moved = secretDestinationIssues(
          options.tools?.(entry.pending.tool),
          entry.request.input,
          kept.value,
          keptSecretPaths(edited),
        );
        if (moved.length > 0) {
          const issues = moved.map((issue) => ({
            path: issue.path.replace(/^arguments\./, ''),
            message: issue.message,
            code: 'secret_destination_changed',
          }));
          return { ok: false, reason: 'invalid_arguments', error: maskedSecretError(issues) };
        }
        edited = kept.value;
        const checked = entry.request.validate(edited);
        if (!checked.ok) return { ok: false, reason: 'invalid_arguments', error: checked.error };
      }
      let ruleCreated: string | null = null;
      if (input.always) {
        if (!options.allowFromNowOn)
          return { ok: false, reason: 'invalid_rule', message: 'Rules cannot be created here.' };
        if (input.always.session && entry.pending.sessionId === null) {
          return {
            ok: false,
            reason: 'invalid_rule',
            message:
              'This call belongs to no session, so a rule "only in this session" cannot be made for it: leave out "session" to allow such calls in every session.',
          };
        }
        try {
          ruleCreated = options.allowFromNowOn({
            tool: entry.pending.tool,
            specifier: input.always.specifier?.trim() || null,
            session: input.always.session ? entry.pending.sessionId : null,
            call: {
              input: edited ?? entry.request.input,
              sessionId: entry.pending.sessionId,
              sideEffect: entry.pending.sideEffect,
              actor: entry.pending.actor,
            },
          });
        } catch (error) {
          if (isRuleShadowedError(error)) {
            return { ok: false, reason: 'rule_shadowed', message: error.message, shadowedBy: error.shadowedBy };
          }
          return { ok: false, reason: 'invalid_rule', message: error instanceof Error ? error.message : String(error) };
        }
      }
      entry.answer({
        approved: true,
        by: by.name,
        byPrincipal,
        ...(edited !== undefined ? { input: edited } : {}),
        ...(input.reason?.trim() ? { reason: input.reason.trim() } : {}),
        ...(ruleCreated ? { ruleCreated } : {}),
      });
      return { ok: true, ruleCreated };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return waiting.size;
    },
  };
}

/** Whether `by` made the call: local mode's one person decides their own calls, as before principals. */
export function isSelfApproval(caller: CallPrincipal | null, by: CallPrincipal): boolean {
  return caller !== null && by.id !== 'local' && caller.id === by.id;
}

/** Edited arguments that still hold a mask where the secret cannot be put back. */
function maskedSecretError(issues: FieldIssue[]): ToolErrorData {
  const listed = issues.map((issue) => `${issue.path || '(arguments)'}: ${issue.message}`).join('; ');
  return errorData('INVALID_ARGUMENTS', `Invalid edited arguments: ${listed}.`, {
    details: { issues },
    stage: 'permission',
  });
}
