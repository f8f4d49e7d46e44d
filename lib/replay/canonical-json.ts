/**
 * JSON text with every object's keys sorted, so that two values equal as data are equal as text
 * whatever order their keys came in: `{"b":1,"a":2}` and `{"a":2,"b":1}` both give `{"a":2,"b":1}`.
 * Array order counts. For parsed JSON (what arguments are once parsed).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
