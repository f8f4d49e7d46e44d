import { allStatsJson, isKnownTool, parseRange, toolStatsJson } from '../../api/stats';
import { SERIES_RANGES } from '../../db/sqlite-tool-series';
import { ApiError } from '../../errors';
import { inputJsonSchema, toAnthropicTool, toOpenAITool } from '../../executor/json-schema';
import type { Toolscope } from '../../server/create-toolscope';
import { shellSandboxJson } from '../../tools/process-sandbox';
import type { HttpContext } from '../env';
import { paramOf } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

/** `?range=hour|day|week`, the day when absent; 400 otherwise. */
function rangeOf(c: HttpContext) {
  const range = parseRange(c.req.query('range'));
  if (!range) throw new ApiError('INVALID_QUERY', `range must be one of: ${SERIES_RANGES.join(', ')}.`);
  return range;
}

/** A tool as `GET /api/v1/tools` lists it in Toolscope's own form. */
function toolJson(ts: Toolscope, tool: ReturnType<Toolscope['executor']['registry']['list']>[number]) {
  return {
    name: tool.name,
    description: tool.description,
    side_effect: tool.sideEffect,
    policy: ts.toolPolicy(tool.name, tool.sideEffect),
    timeout_ms: tool.timeoutMs,
    retry: {
      max_attempts: tool.retry.maxAttempts,
      base_delay_ms: tool.retry.baseDelayMs,
      max_delay_ms: tool.retry.maxDelayMs,
      factor: tool.retry.factor,
      jitter: tool.retry.jitter,
    },
    fallbacks: tool.fallbacks,
    circuit_state: ts.executor.circuitState(tool.name),
    input_schema: inputJsonSchema(tool),
  };
}

export default defineRoutes([
  {
    /** `GET /api/v1/tools?format=openai|anthropic`: the registered tools, in Toolscope's form or a model API's. */
    method: 'GET',
    path: '/api/v1/tools',
    action: 'tools.list',
    handle(c, ts) {
      const format = c.req.query('format') ?? 'toolscope';
      const { id } = c.get('principal');
      const tools = ts.executor.registry.list().filter((tool) => ts.mayCall(id, tool.name));
      if (format === 'openai') return json(c, { tools: tools.map(toOpenAITool) });
      if (format === 'anthropic') return json(c, { tools: tools.map(toAnthropicTool) });
      if (format !== 'toolscope') {
        throw new ApiError(
          'INVALID_QUERY',
          `format: must be "openai", "anthropic" or left out, not "${format.slice(0, 64)}".`,
        );
      }
      return json(c, { tools: tools.map((tool) => toolJson(ts, tool)), sandbox: shellSandboxJson(ts.shellSandbox) });
    },
  },
  {
    /** `GET /api/v1/tools/:name/stats?range=hour|day|week`: one tool's calls, error rate and p50/p95; 404 for a tool never seen. */
    method: 'GET',
    path: '/api/v1/tools/:name/stats',
    action: 'stats.read',
    handle(c, ts) {
      const range = rangeOf(c);
      const name = paramOf(c, 'name');
      if (!isKnownTool(ts, name)) {
        throw new ApiError('NOT_FOUND', `No tool named "${name.slice(0, 256)}" is registered or was ever called.`);
      }
      return json(c, toolStatsJson(ts, name, range));
    },
  },
  {
    /** `GET /api/v1/stats?range=hour|day|week`: calls, error rate and p50/p95 of all tools over time. */
    method: 'GET',
    path: '/api/v1/stats',
    action: 'stats.read',
    handle: (c, ts) => json(c, allStatsJson(ts, rangeOf(c))),
  },
]);
