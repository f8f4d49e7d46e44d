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

/** The value marking a redacted secret in stored arguments and output. */
export const REDACTED_MARK = '[REDACTED]';

/** Whether a value anywhere inside `value` is or contains the redaction mark. */
export function containsRedacted(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(REDACTED_MARK);
  if (Array.isArray(value)) return value.some(containsRedacted);
  if (value && typeof value === 'object') return Object.values(value).some(containsRedacted);
  return false;
}
