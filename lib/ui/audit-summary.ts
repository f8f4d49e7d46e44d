import type { AuditEntryJson } from './audit-api';

type Detail = Record<string, unknown>;

/** Longest one-line summary; the full detail is a click away. */
const MAX_SUMMARY = 160;

const str = (value: unknown) => (typeof value === 'string' ? value : null);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const obj = (value: unknown): Detail | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Detail) : null;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const quoted = (text: string) => `“${text}”`;

/** A scalar as a short text; objects and arrays as compact JSON. */
function short(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '—';
  return JSON.stringify(value) ?? String(value);
}

/** `with fault latency` when a replay injected one. */
function faultPart(fault: unknown): string | null {
  const f = obj(fault);
  return f ? `with fault ${str(f.kind) ?? short(f)}` : null;
}

/** A fault rule's JSON as `name: kind on tool`. */
function ruleLine(rule: unknown): string | null {
  const r = obj(rule);
  if (!r) return null;
  return `${str(r.name) ?? str(r.id) ?? 'rule'}: ${str(r.kind) ?? '?'} on ${str(r.tool) ?? '?'}`;
}

/** The rules added and removed between two lists of `{ list, rule, session }`. */
function rulesDiff(before: unknown, after: unknown): string {
  const texts = (rules: unknown) =>
    (Array.isArray(rules) ? rules : []).map((r) => {
      const rule = obj(r) ?? {};
      const session = str(rule.session);
      return `${str(rule.list) ?? '?'} ${str(rule.rule) ?? '?'}${session ? ` (session ${session})` : ''}`;
    });
  const old = texts(before);
  const now = texts(after);
  const added = now.filter((rule) => !old.includes(rule)).map((rule) => `+${rule}`);
  const removed = old.filter((rule) => !now.includes(rule)).map((rule) => `−${rule}`);
  const changes = [...added, ...removed];
  return `${old.length} → ${plural(now.length, 'rule')}${changes.length > 0 ? `: ${changes.join(', ')}` : ''}`;
}

/** The fields of a fault rule that an update changed (its counters and stamps left out), `field old→new`. */
function ruleChanges(before: unknown, after: unknown): string {
  const b = obj(before) ?? {};
  const a = obj(after) ?? {};
  const changed = Object.keys(a)
    .filter((key) => !['hits', 'updated_at', 'active'].includes(key))
    .filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]))
    .map((key) => `${key} ${short(b[key])}→${short(a[key])}`);
  const hitsReset = num(b.hits) !== 0 && num(a.hits) === 0 ? ['hits reset'] : [];
  const all = [...changed, ...hitsReset];
  return `${str(a.name) ?? str(b.name) ?? 'rule'}: ${all.length > 0 ? all.join(', ') : 'no change'}`;
}

/** The generic summary: the detail's fields as `key=value`. */
function fields(detail: Detail): string {
  return Object.entries(detail)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}=${short(value)}`)
    .join(' · ');
}

function summaryOf(kind: string, d: Detail): string {
  switch (kind) {
    case 'approval.decided': {
      const decision = str(d.decision);
      const parts = [
        `${decision === 'approve' ? 'approved' : decision === 'deny' ? 'denied' : (decision ?? 'decided')}${d.tool ? ` ${short(d.tool)}` : ''}`,
        str(d.reason) ? quoted(str(d.reason) as string) : null,
        d.edited_arguments === true ? 'arguments edited' : null,
        d.rule_created ? `rule added: ${short(d.rule_created)}` : null,
      ];
      return parts.filter(Boolean).join(' · ');
    }
    case 'policy.changed':
      return rulesDiff(d.before, d.after);
    case 'fault_rule.created':
      return ruleLine(d.after) ?? fields(d);
    case 'fault_rule.updated':
      return ruleChanges(d.before, d.after);
    case 'fault_rule.deleted':
      return ruleLine(d.before) ?? fields(d);
    case 'fault_rules.reset':
      return num(d.deleted) === null ? fields(d) : `deleted ${plural(num(d.deleted) as number, 'rule')}`;
    case 'fault_rules.disabled':
      return num(d.disabled) === null ? fields(d) : `disabled ${plural(num(d.disabled) as number, 'rule')}`;
    case 'key.created': {
      const permissions = obj(d.permissions);
      const tools = Array.isArray(d.tools) ? d.tools : null;
      const rules = permissions
        ? (['allow', 'ask', 'deny'] as const)
            .map(
              (list) => [list, Array.isArray(permissions[list]) ? (permissions[list] as unknown[]).length : 0] as const,
            )
            .filter(([, n]) => n > 0)
            .map(([list, n]) => `${n} ${list}`)
        : [];
      const scope = [tools ? `tools ${tools.map(short).join(', ')}` : null, ...rules].filter(Boolean);
      return `${str(d.name) ?? '?'} (${str(d.role) ?? '?'})${scope.length > 0 ? ` · ${scope.join(' · ')}` : ''}`;
    }
    case 'key.revoked':
      return `${str(d.name) ?? '?'} (${str(d.role) ?? '?'})`;
    case 'calls.imported':
      return `${plural(num(d.imported) ?? 0, 'call')} imported${d.kind ? ` (${short(d.kind)})` : ''}`;
    case 'session.deleted': {
      const running = num(d.skipped_running) ?? 0;
      return `${plural(num(d.deleted) ?? 0, 'call')} deleted${running > 0 ? `, ${running} running kept` : ''}`;
    }
    case 'trace.replayed':
      return [d.edited_arguments === true ? 'arguments edited' : 'as recorded', faultPart(d.fault)]
        .filter(Boolean)
        .join(' · ');
    case 'session.replayed':
      return [`${plural(num(d.calls) ?? 0, 'call')}${str(d.into) ? ` into ${str(d.into)}` : ''}`, faultPart(d.fault)]
        .filter(Boolean)
        .join(' · ');
    case 'trace.cancelled':
      return [str(d.tool), str(d.reason) ? quoted(str(d.reason) as string) : null].filter(Boolean).join(' · ');
    case 'mcp_server.reconnected':
      return [str(d.state), str(d.error)].filter(Boolean).join(' · ');
    case 'circuit.reset': {
      const keys = Array.isArray(d.reset) ? d.reset.map((k) => (typeof k === 'string' ? k : 'the tool')) : [];
      return keys.length > 0 ? `closed ${keys.join(', ')}` : 'nothing was open';
    }
    case 'notify.failed':
      return [
        str(d.type) ? `${str(d.type)} notice` : 'notice',
        str(d.target) ? `to ${str(d.target)}` : null,
        num(d.attempts) ? plural(num(d.attempts) as number, 'attempt') : null,
        str(d.error),
      ]
        .filter(Boolean)
        .join(' · ');
    default:
      return fields(d);
  }
}

/**
 * What an entry's `detail` says, in one line for the table: per kind what matters (a decision
 * and its reason, the rules a policy change added and removed, the fields a fault rule update
 * changed…), any other kind as `key=value` pairs. '' when there is nothing to say (a login).
 * @example detailSummary({ kind: 'fault_rules.reset', detail: { deleted: 3 } }) // 'deleted 3 rules'
 */
export function detailSummary(entry: { kind: string; detail: AuditEntryJson['detail'] }): string {
  const detail = obj(entry.detail) ?? {};
  const text = summaryOf(entry.kind, detail).replace(/\s+/g, ' ').trim();
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

/**
 * The page an entry's target is: a trace (approvals, trace.*, failed notices), a session
 * (session.*, imports), a fault rule; null for what has no page of its own (keys, logins, MCP servers).
 */
export function targetHref(entry: { kind: string; target: string | null }): string | null {
  const { kind, target } = entry;
  if (!target) return null;
  const id = encodeURIComponent(target);
  if (kind === 'approval.decided' || kind === 'notify.failed' || kind.startsWith('trace.')) return `/traces/${id}`;
  if (kind === 'calls.imported' || kind.startsWith('session.')) return `/sessions/${id}`;
  if (kind.startsWith('fault_rule.')) return `/faults?rule=${id}`;
  if (kind === 'circuit.reset') return `/tools/${id}`;
  return null;
}
