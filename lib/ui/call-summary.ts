import type { CallDescriber } from '../executor/call-preview';
import { BUILTIN_DESCRIBERS, callSummary } from '../tools/previews';
import { summarizeArguments } from './arguments-summary';
import { parseJsonPrefix } from './json-prefix';

/**
 * A list row's one-line summary of a call, from the start of its redacted arguments JSON (the
 * row's `argumentsPreview`, maybe cut): the tool's own summary (`run_shell` as its command line,
 * `http_request` as `METHOD host/path`), else `key: value, …`; text that is not a JSON object as it is.
 * @example summarizeCall('run_shell', '{"command":["git","commit","-m","fix it"]}') // "git commit -m 'fix it'"
 */
export function summarizeCall(
  tool: string,
  preview: string | null | undefined,
  describer: CallDescriber | undefined = BUILTIN_DESCRIBERS.get(tool),
): string {
  if (!preview) return '';
  const parsed = parseJsonPrefix(preview);
  if (parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)) {
    return callSummary(describer, parsed.value, !parsed.complete);
  }
  return summarizeArguments(preview);
}
