import type {
  Tool as AnthropicSdkTool,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { describe, expectTypeOf, it } from 'vitest';
import type { pendingApprovalJson } from '../api/approvals';
import type { resultJson, summaryJson, traceJson } from '../api/serialize';
import type { ToolResultBlock as ServerToolResultBlock } from '../calls/run-tool-calls';
import type { toAnthropicTool, toOpenAITool } from '../executor/json-schema';
import type {
  AnthropicTool,
  AnthropicToolUseInput,
  OpenAITool,
  OpenAIToolCallInput,
  PendingApproval,
  ToolCallResult,
  ToolMessage,
  ToolResultBlock,
  Trace,
  TraceSummary,
} from './api-types';

/**
 * The client's own JSON types (self-contained, so that an agent imports no server code) checked by
 * `tsc` against what the server's serializers return and against the official SDKs' types: a
 * field renamed on one side fails the type-check.
 */
describe('the client types', () => {
  it('describe what the server serializes', () => {
    expectTypeOf<ReturnType<typeof traceJson>>().toExtend<Trace>();
    expectTypeOf<ReturnType<typeof summaryJson>>().toExtend<TraceSummary>();
    expectTypeOf<ReturnType<typeof resultJson>>().toExtend<ToolCallResult>();
    expectTypeOf<ReturnType<typeof pendingApprovalJson>>().toExtend<PendingApproval>();
    expectTypeOf<ServerToolResultBlock>().toEqualTypeOf<ToolResultBlock>();
    expectTypeOf<ReturnType<typeof toOpenAITool>>().toExtend<OpenAITool>();
    expectTypeOf<ReturnType<typeof toAnthropicTool>>().toExtend<Omit<AnthropicTool, 'input_schema'>>();
  });

  it('take what the OpenAI and Anthropic SDKs give, and give what they take', () => {
    // A model's tool calls go to runToolCalls as they are...
    expectTypeOf<ChatCompletionMessageFunctionToolCall>().toExtend<OpenAIToolCallInput>();
    expectTypeOf<ToolUseBlock>().toExtend<AnthropicToolUseInput>();
    // ...and the answers go back into the conversation as they are.
    expectTypeOf<ToolMessage>().toExtend<ChatCompletionToolMessageParam>();
    expectTypeOf<ToolResultBlock>().toExtend<ToolResultBlockParam>();
    expectTypeOf<OpenAITool>().toExtend<ChatCompletionFunctionTool>();
    expectTypeOf<AnthropicTool>().toExtend<AnthropicSdkTool>();
  });
});
