import { REDACTED } from '../executor/redact';
import type { AnyTool } from '../executor/types';
import { validateInput } from '../executor/validate-input';
import { canonicalJson } from './canonical-json';

/** A field of edited arguments that a replay refuses, named as the API names it (`arguments.headers.authorization`). */
export interface SecretIssue {
  path: string;
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The paths (`headers.authorization`, `items.0.key`) of the strings of edited arguments that hold
 * the mask: once `keepRedacted` accepted the edit, each is a recorded secret it put back.
 */
export function keptSecretPaths(edited: unknown, path: string[] = [], out: string[] = []): string[] {
  if (typeof edited === 'string') {
    if (edited.includes(REDACTED)) out.push(path.join('.'));
  } else if (Array.isArray(edited)) {
    edited.forEach((item, index) => {
      keptSecretPaths(item, [...path, String(index)], out);
    });
  } else if (isObject(edited)) {
    for (const [key, item] of Object.entries(edited)) keptSecretPaths(item, [...path, key], out);
  }
  return out;
}

/** The tool's destination of `args`: `invalid` when they do not fit its schema; null when it cannot be told. */
function destinationOf(tool: AnyTool, args: unknown): string | null | 'invalid' {
  if (!tool.destination) return null;
  const validated = validateInput(tool.name, tool.inputSchema, args);
  if (!validated.ok) return 'invalid';
  try {
    return tool.destination(validated.value);
  } catch {
    return null;
  }
}

/**
 * Whether a replay may send the recorded secrets its edit kept (`keptPaths`, see
 * `keptSecretPaths`) with the arguments it will run (`replayed`): a secret goes back only to where
 * it was sent. Empty when it may; otherwise one issue per kept secret, naming its field.
 * 1. No secret kept (none recorded, or each typed anew): any edit goes.
 * 2. A tool that declares its destination (`ToolDefinition.destination`): the replayed arguments'
 *    destination must be the recorded ones', and both must be known (arguments that do not
 *    validate have none: the replay would be recorded with the secret and the new destination,
 *    and a replay of that replay would then pass).
 * 3. A tool that declares none (an upstream MCP tool, `run_shell`, a tool no longer registered):
 *    any other field may say where the secret goes, so every argument must be as recorded.
 * @param recorded the recorded call's arguments (opened from the vault)
 */
export function secretDestinationIssues(
  tool: AnyTool | undefined,
  recorded: unknown,
  replayed: unknown,
  keptPaths: readonly string[],
): SecretIssue[] {
  if (keptPaths.length === 0) return [];
  let why: string;
  if (tool?.destination) {
    const before = destinationOf(tool, recorded);
    const after = destinationOf(tool, replayed);
    if (before !== null && before !== 'invalid' && before === after) return [];
    if (after === 'invalid') why = `the edited arguments do not fit ${tool.name}, so where they send it cannot be told`;
    else if (after === null) why = `${tool.name} cannot tell where the edited arguments send it`;
    else why = `the edit sends it to ${after}, not where it was recorded going`;
  } else {
    if (canonicalJson(recorded) === canonicalJson(replayed)) return [];
    const name = tool ? tool.name : 'the tool (no longer registered)';
    why = `${name} declares no destination, so any edited argument may send the secret elsewhere`;
  }
  return keptPaths.map((path) => ({
    path: `arguments.${path}`,
    message: `holds ${REDACTED}, a recorded secret, which goes back only to where it was sent: ${why}; type the secret again to send it with these arguments`,
  }));
}
