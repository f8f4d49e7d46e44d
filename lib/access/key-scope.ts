import type { PolicyDecision, PolicyRequest, PolicyResolver } from '../executor/ports';
import type { Policy } from '../executor/types';
import { compileRuleSet, type RuleSet, type ToolLookup } from '../policy/rule-set';
import { compileToolGlob } from '../policy/tool-glob';
import type { KeyRecord } from './key-store';

/** What a key's scope decides beside the global rules: its own rules, and which tools it may call. */
interface Scope {
  rules: RuleSet | null;
  /** Null: every tool. */
  tools: ((tool: string) => boolean) | null;
  /** Set when the key's rules no longer compile (a tool they name is gone): every call is denied. */
  broken: string | null;
}

const RANK: Record<Policy, number> = { deny: 0, ask: 1, allow: 2 };

/**
 * The executor's policy for calls of scoped keys: a key may carry `permissions` (allow, ask and
 * deny rules) and a `tools` list. Its rules are weighed with the global ones as one list — deny
 * anywhere wins, then ask, then allow, then the defaults — so a key can narrow what its agent
 * may do and let through what the defaults would ask about, never what a global rule asks about
 * or denies. A tool outside its list is denied. Calls of unscoped principals go to `global` as
 * they are.
 */
export function createScopedPolicy(options: {
  global: () => RuleSet;
  keyOf: (principalId: string) => KeyRecord | undefined;
  lookup: ToolLookup;
}): { resolve: PolicyResolver; mayCall(principalId: string, tool: string): boolean } {
  // A key's scope never changes (a key is made and revoked, never edited): compiled once, kept by id.
  const scopes = new Map<string, { key: KeyRecord; scope: Scope } | null>();
  const scopeOf = (principalId: string): { key: KeyRecord; scope: Scope } | null => {
    let scoped = scopes.get(principalId);
    if (scoped === undefined) {
      const key = options.keyOf(principalId);
      scoped = key && (key.permissions || key.tools) ? { key, scope: compileScope(key, options.lookup) } : null;
      scopes.set(principalId, scoped);
    }
    return scoped;
  };
  return {
    resolve(request: PolicyRequest): PolicyDecision {
      const global = options.global();
      const scoped = request.principal ? scopeOf(request.principal.id) : null;
      if (!scoped) return global.decide(request);
      const { key, scope } = scoped;
      if (scope.broken) return { policy: 'deny', rule: `key ${key.name}: ${scope.broken}` };
      if (scope.tools && !scope.tools(request.tool)) {
        return { policy: 'deny', rule: `key ${key.name} may call only ${(key.tools ?? []).join(', ')}` };
      }
      const own = scope.rules?.match(request) ?? null;
      const shared = global.match(request);
      if (own && (!shared || RANK[own.policy] < RANK[shared.policy])) {
        return { ...own, rule: `${own.rule} (key ${key.name})` };
      }
      return shared ?? global.decide(request);
    },
    mayCall(principalId, tool) {
      const scoped = scopeOf(principalId);
      return !scoped || (!scoped.scope.broken && (!scoped.scope.tools || scoped.scope.tools(tool)));
    },
  };
}

function compileScope(key: KeyRecord, lookup: ToolLookup): Scope {
  let tools: ((name: string) => boolean)[] | null;
  try {
    tools = key.tools ? key.tools.map(compileToolGlob) : null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { rules: null, tools: () => false, broken: `its tools list no longer holds (${reason})` };
  }
  const mayCall = tools
    ? (tool: string) => (tools as ((name: string) => boolean)[]).some((matches) => matches(tool))
    : null;
  if (!key.permissions) return { rules: null, tools: mayCall, broken: null };
  const rules = (['allow', 'ask', 'deny'] as const).flatMap((list) =>
    (key.permissions?.[list] ?? []).map((rule) => ({ list, rule, session: null })),
  );
  try {
    return { rules: compileRuleSet(rules, {}, lookup), tools: mayCall, broken: null };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { rules: null, tools: mayCall, broken: `its rules no longer hold (${reason})` };
  }
}
