import { inputJsonSchema } from '../executor/json-schema';
import { isJsonSchemaInput } from '../executor/json-schema-input';
import type { AnyTool, Policy, RetryPolicy, SideEffect } from '../executor/types';
import { formatDuration } from './format';
import type { JsonSchema } from './json-schema';
import type { McpToolRelabelJson } from './mcp-servers';

/** A retry policy in one line: `3 attempts, 200 ms ×2 up to 5 s, jitter 0.5`. */
export function describeRetry(retry: RetryPolicy): string {
  if (retry.maxAttempts <= 1) return 'no retries';
  return `${retry.maxAttempts} attempts, ${formatDuration(retry.baseDelayMs)} ×${retry.factor} up to ${formatDuration(retry.maxDelayMs)}${retry.jitter ? `, jitter ${retry.jitter}` : ''}`;
}

/**
 * The policy a tool gets, for its worst side effect and, when its side effect depends on the input
 * (HTTP GET reads, POST writes), for read calls too.
 */
export function describePolicy(
  policyOf: (tool: string, sideEffect: SideEffect) => Policy,
  tool: { name: string; sideEffect: SideEffect; sideEffectOf?: unknown },
): { policy: Policy; text: string } {
  const worst = policyOf(tool.name, tool.sideEffect);
  if (!tool.sideEffectOf || tool.sideEffect === 'read' || tool.sideEffect === 'none')
    return { policy: worst, text: worst };
  const read = policyOf(tool.name, 'read');
  if (read === worst) return { policy: worst, text: worst };
  return { policy: worst, text: `${read} for reads, ${worst} for ${tool.sideEffect}s` };
}

/** What the playground says before a run when the policy will not simply allow the call. */
export function policyNote(toolName: string, policyText: string, policy: Policy): string | null {
  if (policy === 'allow') return null;
  if (policy === 'deny')
    return `The policy denies calls to ${toolName}: a run is recorded and rejected with PERMISSION_DENIED.`;
  return `Policy for ${toolName}: ${policyText}. A run that needs approval waits in the approvals queue until someone approves, edits or denies it.`;
}

/**
 * The schema the editors (playground, approval and replay edits) build their form from and check
 * inline: what models get, keeping the `$schema` a JSON Schema tool came with, so that the browser's
 * Ajv reads it in the same dialect (draft-07 or 2020-12) as the validate stage.
 */
export function formSchemaOf(tool: AnyTool): JsonSchema {
  const input: unknown = tool.inputSchema;
  return (isJsonSchemaInput(input) ? input.schema : inputJsonSchema(tool)) as JsonSchema;
}

/**
 * What the tools page says of a tool its MCP server relabelled: the hints that changed, and what
 * became of its side effect (it stays a write when the server's annotations are not trusted).
 * @example relabelText({ changes: ['readOnlyHint true → false'], side_effect_before: 'read', side_effect_after: 'write' })
 * // 'readOnlyHint true → false · side effect read → write'
 */
export function relabelText(
  relabel: Pick<McpToolRelabelJson, 'changes' | 'side_effect_before' | 'side_effect_after'>,
): string {
  const effect =
    relabel.side_effect_before === relabel.side_effect_after
      ? `side effect stays ${relabel.side_effect_after}`
      : `side effect ${relabel.side_effect_before} → ${relabel.side_effect_after}`;
  return [relabel.changes.join(', '), effect].filter(Boolean).join(' · ');
}

/** The last relabel of each tool, by its registered name, across the servers the tools page lists. */
export function relabelsByTool(
  servers: readonly { relabels?: McpToolRelabelJson[] }[],
): Map<string, McpToolRelabelJson> {
  const byTool = new Map<string, McpToolRelabelJson>();
  for (const server of servers) for (const relabel of server.relabels ?? []) byTool.set(relabel.tool, relabel);
  return byTool;
}
