/**
 * Toolscope's typed client: `fetch` only, no other dependency. Import it from an agent:
 * @example
 * import { createToolscopeClient } from './lib/client';
 * const toolscope = createToolscopeClient({ baseUrl: 'http://127.0.0.1:3000', token: process.env.TOOLSCOPE_TOKEN });
 */
export * from './api-types';
export {
  createToolscopeClient,
  type RequestOptions,
  type ToolscopeClient,
  type ToolscopeClientOptions,
} from './create-toolscope-client';
export type { SseFrame } from './sse-parser';
export type { EventFilter, SubscribeOptions } from './subscribe-events';
export { CLIENT_ERROR_CODES, isToolscopeError, ToolscopeError } from './toolscope-error';
export type { WaitForApprovalOptions } from './wait-for-approval';
