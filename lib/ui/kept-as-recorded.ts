import { REDACTED_MARK } from './json-issues';
import { childPath } from './json-path-diff';

export interface MaskedValue {
  path: string;
  /** True when left exactly as shown: the server uses the recorded value. False: edited around the mask, refused. */
  kept: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The masked values (`[REDACTED]`, or a string holding it) still in an edit of a recorded call's
 * arguments, and whether each is left as shown — then the server replays it with its recorded value
 * (as `keepRedacted` does on the server); one edited around the mask would be refused.
 * @example maskedValues({ key: '[REDACTED]' }, { key: '[REDACTED]' }) // [{ path: 'key', kept: true }]
 */
export function maskedValues(edited: unknown, shown: unknown, path = ''): MaskedValue[] {
  if (typeof edited === 'string') {
    return edited.includes(REDACTED_MARK) ? [{ path, kept: edited === shown }] : [];
  }
  if (Array.isArray(edited)) {
    const list = Array.isArray(shown) ? shown : [];
    return edited.flatMap((item, i) => maskedValues(item, list[i], childPath(path, i)));
  }
  if (isObject(edited)) {
    const record = isObject(shown) ? shown : {};
    return Object.entries(edited).flatMap(([key, item]) => maskedValues(item, record[key], childPath(path, key)));
  }
  return [];
}
