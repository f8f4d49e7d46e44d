import type { FaultKind } from '@/lib/executor/types';
import { FAULT_KINDS, type FaultParamField } from '@/lib/ui/fault-kinds';
import type { JsonSchema } from '@/lib/ui/json-schema';

function fieldSchema(field: FaultParamField): JsonSchema {
  const description = `${field.label}${field.help ? ` — ${field.help}` : ''}`;
  switch (field.type) {
    case 'number':
      return { type: 'integer', description };
    case 'text':
      return { type: 'string', description };
    case 'checkbox':
      return { type: 'boolean', description };
    case 'select':
      return { enum: [...(field.options ?? [])], description };
    case 'json':
      return { description };
  }
}

/**
 * A fault kind's parameters (the faults page's field list, `lib/ui/fault-kinds.ts`) as a JSON
 * Schema, so that the replay's one-off fault is edited in the same schema form as arguments.
 */
export function faultParamsSchema(kind: FaultKind): JsonSchema {
  const fields = FAULT_KINDS[kind].fields;
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.key, fieldSchema(field)])),
    required: fields.filter((field) => field.required).map((field) => field.key),
  };
}

/** Starting parameters: each required field filled from its placeholder (`500` ms, `UPSTREAM_DOWN`…). */
export function defaultFaultParams(kind: FaultKind): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const field of FAULT_KINDS[kind].fields) {
    if (!field.required) continue;
    if (field.type === 'number') params[field.key] = Number(field.placeholder ?? 0) || 0;
    else if (field.type === 'select') params[field.key] = field.options?.[0];
    else if (field.type === 'checkbox') params[field.key] = false;
    else params[field.key] = field.placeholder ?? '';
  }
  return params;
}
