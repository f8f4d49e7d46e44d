import 'server-only';
import type { ToolInfo } from '@/components/tools/tools-overview';
import type { AnyTool } from '@/lib/executor/types';
import type { Toolscope } from '@/lib/server/create-toolscope';
import { describePolicy, describeRetry } from '@/lib/ui/tool-info';

/** Whether a tool can run now (a tool of an MCP server that is down cannot); tools that do not say can. */
export function availabilityOf(tool: AnyTool): { available: boolean; reason: string | null } {
  // `availability` is optional on a tool definition (upstream MCP tools have it).
  const check = (tool as { availability?: () => { available: boolean; reason: string | null } }).availability;
  return check ? check() : { available: true, reason: null };
}

/** Every registered tool as the catalog shows it, read from the registry as it is now (it changes at runtime). */
export function toolCatalog(ts: Toolscope): ToolInfo[] {
  return ts.executor.registry
    .list()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((tool): ToolInfo => {
      const policy = describePolicy(ts.toolPolicy, tool);
      const availability = availabilityOf(tool);
      return {
        name: tool.name,
        description: tool.description,
        sideEffect: tool.sideEffect,
        policy: policy.policy,
        policyText: policy.text,
        timeoutMs: tool.timeoutMs,
        retryText: describeRetry(tool.retry),
        available: availability.available,
        unavailableReason: availability.available ? null : availability.reason,
      };
    });
}
