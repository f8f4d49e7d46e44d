import { z } from 'zod';
import { allStatsJson, isKnownTool, parseRange, toolStatsJson } from '../../api/stats';
import { toolJson } from '../../api/tool-json';
import { SERIES_RANGES } from '../../db/sqlite-tool-series';
import { ApiError } from '../../errors';
import { toAnthropicTool, toOpenAITool } from '../../executor/json-schema';
import { shellSandboxJson } from '../../tools/process-sandbox';
import { audit } from '../audit';
import type { HttpContext } from '../env';
import { optionalJsonBody, paramOf, parseWith } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

/** `?range=hour|day|week`, the day when absent; 400 otherwise. */
function rangeOf(c: HttpContext) {
  const range = parseRange(c.req.query('range'));
  if (!range) throw new ApiError('INVALID_QUERY', `range must be one of: ${SERIES_RANGES.join(', ')}.`);
  return range;
}

/** The body of a breaker reset: the one key to close (a `host:port`; null for a tool's single breaker), or all. */
const resetBody = z
  .object({
    key: z
      .string()
      .min(1)
      .max(300)
      .nullable()
      .optional()
      .describe('The breaker to close: a host:port for http_request, null for a tool with one breaker'),
  })
  .strict();

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
    /**
     * `GET /api/v1/tools/:name`: one registered tool as the list gives it: its effective timeout,
     * attempts and breaker thresholds, and each breaker that is not closed (`circuits`); 404 otherwise.
     */
    method: 'GET',
    path: '/api/v1/tools/:name',
    action: 'tools.list',
    handle(c, ts) {
      const name = paramOf(c, 'name');
      const tool = ts.executor.registry.get(name);
      if (!tool || !ts.mayCall(c.get('principal').id, name)) throw unknownTool(name);
      return json(c, toolJson(ts, tool));
    },
  },
  {
    /**
     * `POST /api/v1/tools/:name/circuit/reset` with an optional body `{ "key": "<host:port>" }`:
     * closes the tool's breakers (only that key's when given), forgetting their failures, so the
     * next call runs. `{ "reset": [keys] }` names those that were not closed; audited.
     */
    method: 'POST',
    path: '/api/v1/tools/:name/circuit/reset',
    action: 'circuits.reset',
    body: 'optional-json',
    maxBodyBytes: 16 * 1024,
    handle(c, ts) {
      const name = paramOf(c, 'name');
      const body = parseWith(resetBody, optionalJsonBody(c) ?? {}, 'INVALID_REQUEST');
      if (!ts.executor.registry.get(name)) throw unknownTool(name);
      const reset = ts.executor.resetCircuits(name, body.key);
      audit(c, ts, 'circuit.reset', name, { key: body.key ?? null, reset });
      return json(c, { reset });
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

function unknownTool(name: string): ApiError {
  return new ApiError('NOT_FOUND', `No tool named "${name.slice(0, 256)}" is registered.`);
}
