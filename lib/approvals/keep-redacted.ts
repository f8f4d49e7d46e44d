import { REDACTED } from '../executor/redact';
import type { FieldIssue } from '../executor/validate-input';

export type KeptSecrets = { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] };

/**
 * Edited arguments come from a form that only ever saw the redacted ones, so a secret the person
 * left alone arrives as `[REDACTED]` (or inside a string that held it). Here each value the edit
 * left exactly as shown gets the recorded value back; a `[REDACTED]` anywhere else (a string
 * edited around it, a new field) is refused with its path, so a placeholder never runs as if it
 * were the secret.
 * @param edited what the person sent
 * @param shown the redacted arguments they were shown
 * @param recorded the arguments as the tool would receive them (validated, unredacted)
 */
export function keepRedacted(edited: unknown, shown: unknown, recorded: unknown): KeptSecrets {
  const issues: FieldIssue[] = [];
  const value = walk(edited, shown, recorded, [], issues);
  return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function walk(edited: unknown, shown: unknown, recorded: unknown, path: string[], issues: FieldIssue[]): unknown {
  if (typeof edited === 'string') {
    if (!edited.includes(REDACTED)) return edited;
    if (edited === shown && typeof recorded === 'string') return recorded;
    issues.push({
      path: path.join('.'),
      code: 'redacted_placeholder',
      message: `holds ${REDACTED}, the mask of a recorded secret: leave the value as it was shown to keep the secret, or type the whole value again`,
    });
    return edited;
  }
  if (Array.isArray(edited)) {
    const shownList = Array.isArray(shown) ? shown : [];
    const recordedList = Array.isArray(recorded) ? recorded : [];
    return edited.map((item, index) =>
      walk(item, shownList[index], recordedList[index], [...path, String(index)], issues),
    );
  }
  if (isObject(edited)) {
    const shownObject = isObject(shown) ? shown : {};
    const recordedObject = isObject(recorded) ? recorded : {};
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(edited)) {
      out[key] = walk(item, shownObject[key], recordedObject[key], [...path, key], issues);
    }
    return out;
  }
  return edited;
}
