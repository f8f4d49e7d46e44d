import { z } from 'zod';
import { ApiError } from '../../errors';
import type { PolicyDecision } from '../../executor/ports';
import { ifMatchHolds, policyEtag } from '../../policy/policy-etag';
import { isPolicyRulesError, type PolicyRule, type RuleIssue } from '../../policy/policy-store';
import { previewRules } from '../../policy/preview-rules';
import type { Toolscope } from '../../server/create-toolscope';
import { audit } from '../audit';
import type { HttpContext } from '../env';
import { jsonBody } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

/** How many recorded calls the preview decides again. */
export const PREVIEW_CALLS = 1000;
const MAX_RULES = 1000;

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

function ruleJson(rule: PolicyRule) {
  return { id: rule.id, list: rule.list, rule: rule.rule, session: rule.session, source: rule.source };
}

/** The rules in force as GET and PUT answer them, with their `ETag`. */
function policyAnswer(c: HttpContext, ts: Toolscope) {
  const rules = ts.policy.rules();
  return json(c, { rules: rules.map(ruleJson), config_file: ts.config.configPath }, 200, { etag: policyEtag(rules) });
}

/** `rules.2.rule` → `rules[2].rule`, as the field errors name places. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );
}

function invalidRules(issues: RuleIssue[]): ApiError {
  const first = issues[0] as RuleIssue;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new ApiError('INVALID_RULES', `${first.path}: ${first.message}${more}`, { errors: issues });
}

/** Reads and checks `{ "rules": [{ "list", "rule", "session"? }] }`: the rules, or the 400. */
function readRules(c: HttpContext, ts: Toolscope) {
  const parsed = rulesBody.safeParse(jsonBody(c));
  if (!parsed.success) {
    throw invalidRules(parsed.error.issues.map((i) => ({ path: issuePath(i.path) || 'body', message: i.message })));
  }
  const rules = parsed.data.rules.map((rule) => ({ list: rule.list, rule: rule.rule, session: rule.session ?? null }));
  const issues = ts.policy.check(rules);
  if (issues.length > 0) throw invalidRules(issues);
  return rules;
}

const decisionJson = (decision: PolicyDecision) => ({ policy: decision.policy, rule: decision.rule });

/** The rules a PUT replaces (the data folder's), as the audit trail keeps them. */
const dataRules = (ts: Toolscope) =>
  ts.policy
    .rules()
    .filter((rule) => rule.source === 'data')
    .map((rule) => ({ list: rule.list, rule: rule.rule, session: rule.session }));

export default defineRoutes([
  {
    /**
     * `GET /api/v1/policy`: every rule in force, each with its source (`config` or `data`), and the
     * config file; its `ETag` is what a PUT's `If-Match` names.
     */
    method: 'GET',
    path: '/api/v1/policy',
    action: 'policy.read',
    handle: policyAnswer,
  },
  {
    /**
     * `PUT /api/v1/policy` with `{ "rules": [{ "list", "rule", "session"? }] }`: replaces the rules
     * kept in the data folder (the config file's stay as they are). 200 with the same shape as GET;
     * 400 `INVALID_RULES` with `details.errors: [{ path: "rules[2].rule", message }]`, nothing saved;
     * 412 `PRECONDITION_FAILED` when `If-Match` names rules that are no longer the ones in force
     * (a rule was added or removed meanwhile), nothing saved.
     */
    method: 'PUT',
    path: '/api/v1/policy',
    action: 'policy.write',
    body: 'json',
    handle(c, ts) {
      const rules = readRules(c, ts);
      const current = policyEtag(ts.policy.rules());
      if (!ifMatchHolds(c.req.header('if-match'), current)) {
        throw new ApiError(
          'PRECONDITION_FAILED',
          'The rules changed since you read them: read them again (GET /api/v1/policy) and apply your change to what is there now.',
          { etag: current },
          { etag: current },
        );
      }
      const before = dataRules(ts);
      try {
        ts.policy.replace(rules);
      } catch (error) {
        if (isPolicyRulesError(error)) throw invalidRules(error.issues);
        throw error;
      }
      audit(c, ts, 'policy.changed', null, { before, after: dataRules(ts) });
      return policyAnswer(c, ts);
    },
  },
  {
    /**
     * `POST /api/v1/policy/preview` with the body of PUT: how those rules (with the config file's)
     * would have decided the last 1,000 recorded calls, against the rules in force. Nothing is saved.
     * `arguments` are the recorded, redacted ones, and the rules were judged against them.
     */
    method: 'POST',
    path: '/api/v1/policy/preview',
    action: 'policy.read',
    body: 'json',
    handle(c, ts) {
      const rules = readRules(c, ts);
      const preview = previewRules({
        calls: ts.recentCalls(PREVIEW_CALLS),
        before: ts.policy.current(),
        after: ts.policy.draft(rules),
        lookup: ts.executor.registry.get,
      });
      return json(c, {
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
    },
  },
]);
