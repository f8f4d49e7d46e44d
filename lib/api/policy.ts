import { z } from 'zod';
import type { PolicyDecision } from '../executor/ports';
import { isPolicyRulesError, type PolicyRule, type RuleIssue } from '../policy/policy-store';
import { previewRules } from '../policy/preview-rules';
import type { Toolscope } from '../server/create-toolscope';
import { apiError, handle, readJsonBody } from './http';
import { guardJsonBody } from './request-guard';

/** How many recorded calls the preview decides again. */
export const PREVIEW_CALLS = 1000;
const MAX_RULES = 1000;
const MAX_BODY_BYTES = 1024 * 1024;

const rulesBody = z
  .object({
    rules: z
      .array(
        z
          .object({
            list: z.enum(['allow', 'ask', 'deny']),
            rule: z.string().max(4096),
            session: z.string().trim().min(1).max(256).nullable().optional(),
          })
          .strict(),
      )
      .max(MAX_RULES),
  })
  .strict();

type PolicyTs = Pick<Toolscope, 'policy' | 'config' | 'recentCalls' | 'executor'>;

function ruleJson(rule: PolicyRule) {
  return { id: rule.id, list: rule.list, rule: rule.rule, session: rule.session, source: rule.source };
}

function policyJson(ts: PolicyTs) {
  return { rules: ts.policy.rules().map(ruleJson), config_file: ts.config.configPath };
}

/** `rules.2.rule` → `rules[2].rule`, as the field errors name places. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );
}

function invalidRules(issues: RuleIssue[]): Response {
  const first = issues[0] as RuleIssue;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return apiError(400, 'INVALID_RULES', `${first.path}: ${first.message}${more}`, { errors: issues });
}

/** Reads and checks `{ "rules": [{ "list", "rule", "session"? }] }`: the rules, or the 400 to answer. */
async function readRules(request: Request, ts: PolicyTs) {
  const json = guardJsonBody(request.headers.get('content-type'));
  if (!json.ok) return apiError(json.status, json.code, json.message);
  const parsed = rulesBody.safeParse(await readJsonBody(request, MAX_BODY_BYTES));
  if (!parsed.success) {
    return invalidRules(parsed.error.issues.map((i) => ({ path: issuePath(i.path) || 'body', message: i.message })));
  }
  const rules = parsed.data.rules.map((rule) => ({ list: rule.list, rule: rule.rule, session: rule.session ?? null }));
  const issues = ts.policy.check(rules);
  return issues.length > 0 ? invalidRules(issues) : rules;
}

/** `GET /api/v1/policy`: every rule in force, each with its source (`config` or `data`), and the config file. */
export function getPolicy(ts: PolicyTs): Promise<Response> {
  return handle(() => Response.json(policyJson(ts), { headers: { 'cache-control': 'no-store' } }));
}

/**
 * `PUT /api/v1/policy` with `{ "rules": [{ "list", "rule", "session"? }] }`: replaces the rules
 * kept in the data folder (the config file's stay as they are). 200 with the same shape as GET;
 * 400 `INVALID_RULES` with `details.errors: [{ path: "rules[2].rule", message }]`, nothing saved.
 */
export function putPolicy(request: Request, ts: PolicyTs): Promise<Response> {
  return handle(async () => {
    const rules = await readRules(request, ts);
    if (rules instanceof Response) return rules;
    try {
      ts.policy.replace(rules);
    } catch (error) {
      if (isPolicyRulesError(error)) return invalidRules(error.issues);
      throw error;
    }
    return Response.json(policyJson(ts));
  });
}

const decisionJson = (decision: PolicyDecision) => ({ policy: decision.policy, rule: decision.rule });

/**
 * `POST /api/v1/policy/preview` with the body of PUT: how those rules (with the config file's)
 * would have decided the last 1,000 recorded calls, against the rules in force. Nothing is saved.
 * `arguments` are the recorded, redacted ones, and the rules were judged against them.
 */
export function previewPolicy(request: Request, ts: PolicyTs): Promise<Response> {
  return handle(async () => {
    const rules = await readRules(request, ts);
    if (rules instanceof Response) return rules;
    const preview = previewRules({
      calls: ts.recentCalls(PREVIEW_CALLS),
      before: ts.policy.current(),
      after: ts.policy.draft(rules),
      lookup: ts.executor.registry.get,
    });
    return Response.json({
      counts: preview.counts,
      changed: preview.changed.map((call) => ({
        trace_id: call.traceId,
        tool: call.tool,
        arguments: call.arguments,
        before: decisionJson(call.before),
        after: decisionJson(call.after),
      })),
      calls: preview.calls,
      skipped: preview.skipped,
      arguments_redacted: true,
    });
  });
}
