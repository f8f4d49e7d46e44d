import { parseJsonPrefix } from './json-prefix';

const MAX_CHARS = 240;

function compact(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).length === 0 ? '' : '…'}}`;
  return String(value);
}

/**
 * A one-line summary of a call's (redacted) arguments preview for the list: `path: "a.md", limit: 10`.
 * The preview may be cut JSON; what parses is shown, nested values as `{…}` / `[3 items]`, and
 * `…` marks that more followed. Text that is not JSON is shown with its whitespace collapsed.
 * @example summarizeArguments('{"path":"README.md","limit":10}') // 'path: "README.md", limit: 10'
 */
export function summarizeArguments(preview: string | null | undefined): string {
  if (!preview) return '';
  const parsed = parseJsonPrefix(preview);
  let text: string;
  if (parsed.ok && parsed.value && typeof parsed.value === 'object' && !Array.isArray(parsed.value)) {
    const entries = Object.entries(parsed.value as Record<string, unknown>);
    text = entries.length === 0 ? '{}' : entries.map(([key, value]) => `${key}: ${compact(value)}`).join(', ');
    if (!parsed.complete) text += ' …';
  } else if (parsed.ok) {
    text = JSON.stringify(parsed.value) + (parsed.complete ? '' : ' …');
  } else {
    text = preview.replace(/\s+/g, ' ').trim();
  }
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}
