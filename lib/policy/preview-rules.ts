import type { RecentCall } from '../db/sqlite-recent-calls';
import type { PolicyDecision } from '../executor/ports';
import type { Policy } from '../executor/types';
import { validateInput } from '../executor/validate-input';
import type { RuleSet, ToolLookup } from './rule-set';

/** A recorded call whose policy (allow, ask, deny) the draft rules would change. */
export interface ChangedCall {
  traceId: string;
  tool: string;
  /** Redacted, as recorded. */
  arguments: unknown;
  before: PolicyDecision;
  after: PolicyDecision;
}

export interface RulesPreview {
  /** Calls read. */
  calls: number;
  /** Calls no policy decides: their tool is gone, or their (redacted) arguments do not validate now. */
  skipped: number;
  /** The draft's decisions over the calls not skipped. */
  counts: Record<Policy, number>;
  /** Newest first. */
  changed: ChangedCall[];
}

/**
 * How `after` (the draft rules) would have decided recorded calls, against `before` (the rules in
 * force). Each call is decided from its recorded arguments, validated again by its tool's schema
 * as the permission stage would see them. Those arguments are the redacted ones: a rule about a
 * secret value (a token in a URL) is judged against `[REDACTED]`. The tools' own checks (shell
 * allowlist, HTTP hosts) come before the rules and are not part of the preview.
 */
export function previewRules(options: {
  calls: readonly RecentCall[];
  before: RuleSet;
  after: RuleSet;
  lookup: ToolLookup;
}): RulesPreview {
  const counts: Record<Policy, number> = { allow: 0, ask: 0, deny: 0 };
  const changed: ChangedCall[] = [];
  let skipped = 0;
  for (const call of options.calls) {
    const tool = options.lookup(call.tool);
    const input = tool ? validateInput(tool.name, tool.inputSchema, call.arguments, call.argumentsChars) : null;
    if (!tool || !input?.ok) {
      skipped++;
      continue;
    }
    const request = {
      tool: call.tool,
      input: input.value,
      sideEffect: call.sideEffect ?? tool.sideEffectOf?.(input.value) ?? tool.sideEffect,
      actor: call.actor,
      sessionId: call.sessionId,
    };
    const before = options.before.decide(request);
    const after = options.after.decide(request);
    counts[after.policy]++;
    if (before.policy !== after.policy) {
      changed.push({ traceId: call.id, tool: call.tool, arguments: call.arguments, before, after });
    }
  }
  return { calls: options.calls.length, skipped, counts, changed };
}
