import type { AttemptFault, CallPrincipal, Policy, SideEffect, ToolErrorData } from './types';

/** What a person (or a rule) is asked to decide for a call whose policy is `ask`. */
export interface ApprovalRequest {
  traceId: string;
  toolCallId: string;
  sessionId: string | null;
  actor: string;
  /** Who made the call: an approver must not be them. */
  principal: CallPrincipal | null;
  tool: string;
  sideEffect: SideEffect;
  /** Redacted: what the approver may show. */
  arguments: unknown;
  /** The validated input the tool would receive. */
  input: unknown;
  /** The rule or default that asked for approval (`ask run_shell(npm *)`, `default for write: ask`). */
  rule: string;
  /** Epoch ms. */
  requestedAt: number;
  /** Epoch ms: the executor ends the wait with APPROVAL_TIMEOUT then (the signal aborts); null: never. */
  expiresAt: number | null;
  /** Checks edited arguments against the tool's schema, so an approver can refuse them and keep the call pending. */
  validate(input: unknown): { ok: true } | { ok: false; error: ToolErrorData };
  /** Fires when the wait is over without a decision: the call was cancelled, or the approval expired. */
  signal: AbortSignal;
}

export type ApprovalDecision =
  | {
      approved: true;
      /** Edited input to run instead; validated again. */
      input?: unknown;
      by?: string;
      /** The principal who decided. */
      byPrincipal?: CallPrincipal;
      reason?: string;
      /** The rule the decision created ("always allow"), as the Policy page shows it. */
      ruleCreated?: string;
    }
  | { approved: false; reason: string; timedOut?: boolean; by?: string; byPrincipal?: CallPrincipal };

/** Decides calls whose policy is `ask`. The approvals queue implements it; tests pass their own. */
export interface Approver {
  request(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/**
 * The approver used until manual approval exists: every `ask` becomes a denial that says
 * approval is required, so side-effectful calls never run unapproved. The message names the
 * config file in use (`configFile`), or says none is and where one would be read.
 */
export function createDenyingApprover(configFile: string | null): Approver {
  const where = configFile
    ? `in ${configFile}`
    : 'in a config file (none is in use: create toolscope.config.json in the working directory or the data folder, or set TOOLSCOPE_CONFIG)';
  return {
    request: async (request) => ({
      approved: false,
      reason: `Approval is required to run "${request.tool}" (side effect: ${request.sideEffect}), and no approver is connected. Change its policy to "allow" ${where} to run it without approval.`,
    }),
  };
}

/** The denying approver when no config file is known (tests, scripts). */
export const denyUntilApproved: Approver = createDenyingApprover(null);

/** What a fault source is asked about: one attempt of one call, before it runs. */
export interface FaultRequest {
  traceId: string;
  /** The tool this attempt runs: the called one, or a fallback. */
  tool: string;
  /** The validated input the tool receives. */
  input: unknown;
  sessionId: string | null;
  actor: string;
  /** The attempt's number across the call, fallbacks included: the same as the attempts table. */
  attempt: number;
}

/**
 * Decides, per attempt, whether to inject a fault (the fault rules, `lib/faults`). Called on the
 * hot path before every attempt: answer null quickly when nothing applies.
 */
export interface FaultSource {
  faultFor(request: FaultRequest): AttemptFault | null;
  /**
   * Optional: true when no fault can fire (no rules at all), so the executor skips building the
   * request — the hot path of a Toolscope without rules allocates nothing for faults.
   */
  idle?(): boolean;
}

/** What a policy decides on: the call as it would run. */
export interface PolicyRequest {
  tool: string;
  /** The validated input the tool would receive. */
  input: unknown;
  sideEffect: SideEffect;
  actor: string;
  sessionId: string | null;
  /** Who made the call: a key may carry rules of its own. */
  principal?: CallPrincipal | null;
}

/** A policy and what decided it, shown in the permission stage and the approvals queue. */
export interface PolicyDecision {
  policy: Policy;
  /**
   * The rule or default that decided, as a person reads it: `allow run_shell(git status)`,
   * `policies.write_file = ask`, `default for write: ask`.
   */
  rule: string;
  /** The file the rule is written in, named in denials (config file, policy.json); absent for defaults. */
  source?: string;
}

/**
 * Decides the policy of a call. A bare `Policy` is accepted (tests, simple setups) and recorded
 * as `policy <policy>`.
 */
export type PolicyResolver = (request: PolicyRequest) => PolicyDecision | Policy;

/** The default decision: `none` and `read` run; `write` and `exec` ask. */
export function defaultDecision(sideEffect: SideEffect): PolicyDecision {
  const policy: Policy = sideEffect === 'none' || sideEffect === 'read' ? 'allow' : 'ask';
  return { policy, rule: `default for ${sideEffect}: ${policy}` };
}

/** The default resolver: the side effect decides. */
export const defaultPolicy: PolicyResolver = (request) => defaultDecision(request.sideEffect);

/** Asks `resolver`, turning a bare policy into a decision. */
export function decidePolicy(resolver: PolicyResolver, request: PolicyRequest): PolicyDecision {
  const decided = resolver(request);
  return typeof decided === 'string' ? { policy: decided, rule: `policy ${decided}` } : decided;
}
