import type { z } from 'zod';
import { errorData } from './errors';
import type { ToolErrorData } from './types';

export interface FieldIssue {
  /** Dotted path to the field (`items.2.name`); empty for the whole object. */
  path: string;
  message: string;
  code: string;
}

export type Validated = { ok: true; value: unknown } | { ok: false; error: ToolErrorData };

/** Stage 2: checks arguments against the tool's zod schema, one issue per failing field. */
export function validateInput(toolName: string, schema: z.ZodType, value: unknown): Validated {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues: FieldIssue[] = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
    code: issue.code,
  }));
  const listed = issues
    .slice(0, 10)
    .map((i) => `${i.path || '(arguments)'}: ${i.message}`)
    .join('; ');
  return {
    ok: false,
    error: errorData('INVALID_ARGUMENTS', `Invalid arguments for ${toolName}: ${listed}.`, {
      details: { issues },
      stage: 'validate',
    }),
  };
}
