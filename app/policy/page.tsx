import type { Metadata } from 'next';
import type { PolicyJson } from '@/components/policy/policy-draft';
import { PolicyView } from '@/components/policy/policy-view';
import type { PolicyToolInfo } from '@/components/policy/specifier';
import { defaultDecision } from '@/lib/executor/ports';
import type { SideEffect } from '@/lib/executor/types';
import { policyEtag } from '@/lib/policy/policy-etag';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Policy' };

/**
 * The permission rules in force, a draft of the data folder's rules, and what that draft would
 * have decided for the last recorded calls. The rules are live data (`GET /api/v1/policy`, held
 * by TanStack Query from this first render); the tools, registered at start, are rendered here
 * with what the API does not give: each tool's specifier help and its decision when no rule matches.
 */
export default function PolicyPage() {
  const ts = getToolscope();
  const policies = ts.config.policies;
  const noRule = (tool: string, sideEffect: SideEffect) => {
    const policy = policies[tool];
    return policy ? { policy, rule: `policies.${tool} = ${policy}` } : defaultDecision(sideEffect);
  };
  const tools = ts.executor.registry
    .list()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(
      (tool): PolicyToolInfo => ({
        name: tool.name,
        sideEffect: tool.sideEffect,
        specifier: tool.permissionSubject?.describe ?? null,
        noRule: noRule(tool.name, tool.sideEffect),
        noRuleRead:
          tool.sideEffectOf && tool.sideEffect !== 'read' && tool.sideEffect !== 'none'
            ? noRule(tool.name, 'read')
            : null,
      }),
    );
  const rules = ts.policy.rules();
  const initial: PolicyJson = {
    etag: policyEtag(rules),
    rules: rules.map((rule) => ({
      id: rule.id,
      list: rule.list,
      rule: rule.rule,
      session: rule.session,
      source: rule.source,
    })),
    config_file: ts.config.configPath,
  };
  return <PolicyView initial={initial} tools={tools} renderedAt={Date.now()} />;
}
