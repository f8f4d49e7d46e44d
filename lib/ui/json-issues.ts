/** A per-field problem from INVALID_ARGUMENTS details (`error.details.issues`). */
export interface FieldIssue {
  /** Dotted path (`items.2.name`); empty for the arguments as a whole. */
  path: string;
  message: string;
  code: string;
}

/** The field issues of an error's details, or none when the details hold none. */
export function fieldIssuesOf(details: unknown): FieldIssue[] {
  if (!details || typeof details !== 'object') return [];
  const issues = (details as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return [];
  return issues.flatMap((issue): FieldIssue[] => {
    if (!issue || typeof issue !== 'object') return [];
    const { path, message, code } = issue as Record<string, unknown>;
    const dotted = Array.isArray(path) ? path.map(String).join('.') : typeof path === 'string' ? path : '';
    return [{ path: dotted, message: String(message ?? ''), code: String(code ?? '') }];
  });
}

/**
 * The issues to show: the server's (the executor's judgement) and the editor's own, each once.
 * A local issue is dropped when the server reports anything on the same path: the server's
 * judgement of that field wins (a zod tool's server words its issues unlike the local Ajv check,
 * "Too small: expected string to have >=1 characters" against "Must not be empty").
 * @example mergeFieldIssues([{ path: 'a', message: 'Required', code: 'invalid_type' }], serverIssues)
 */
export function mergeFieldIssues(local: readonly FieldIssue[], server: readonly FieldIssue[]): FieldIssue[] {
  const out: FieldIssue[] = [];
  const seen = new Set<string>();
  const add = (issue: FieldIssue) => {
    const key = JSON.stringify([issue.path, issue.message]);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(issue);
  };
  for (const issue of server) add(issue);
  const said = new Set(server.map((issue) => issue.path));
  for (const issue of local) if (!said.has(issue.path)) add(issue);
  return out;
}

/** Issues grouped by dotted path, in order, for the fields that show them. */
export function issuesByPath(issues: readonly FieldIssue[]): Map<string, FieldIssue[]> {
  const byPath = new Map<string, FieldIssue[]>();
  for (const issue of issues) byPath.set(issue.path, [...(byPath.get(issue.path) ?? []), issue]);
  return byPath;
}

/** The value marking a redacted secret in stored arguments and output. */
export const REDACTED_MARK = '[REDACTED]';

/** Whether a value anywhere inside `value` is or contains the redaction mark. */
export function containsRedacted(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(REDACTED_MARK);
  if (Array.isArray(value)) return value.some(containsRedacted);
  if (value && typeof value === 'object') return Object.values(value).some(containsRedacted);
  return false;
}
