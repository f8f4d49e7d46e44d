import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  ContentBlock,
  Message,
  MessageParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallAnswer } from '../../calls/answer-calls';
import type { ToolResultBlock } from '../../calls/run-tool-calls';
import { loadConfig } from '../../config';
import { toAnthropicTool, toOpenAITool } from '../../executor/json-schema';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

/**
 * Both request and answer forms of the API checked against the official SDKs' own types: `tsc`
 * checks the assignments (types only — nothing here calls OpenAI or Anthropic), the runtime
 * assertions check that what a real Toolscope answers through its HTTP app has those shapes.
 */

// What the server's own types promise, checked by `tsc` against the SDKs'. (A tool's input schema
// is derived from zod as a plain record; that it is an object schema is checked at runtime below.)
type AnyTool = Parameters<typeof toOpenAITool>[0];
const _serverToolMessage = (answer: CallAnswer): ChatCompletionToolMessageParam => answer.message;
const _serverToolResult = (block: ToolResultBlock): ToolResultBlockParam => block;
const _serverOpenAITool = (tool: AnyTool): ChatCompletionFunctionTool => toOpenAITool(tool);
const _serverAnthropicTool = (tool: AnyTool): Omit<Tool, 'input_schema'> => toAnthropicTool(tool);
void [_serverToolMessage, _serverToolResult, _serverOpenAITool, _serverAnthropicTool];

/** An entry of `results`, as far as these tests read it. */
interface ResultJson {
  tool_call_id: string;
  trace_id: string;
  tool: string;
  status: string;
  success: boolean;
  error: { code: string } | null;
}

/** The answer to the OpenAI form, as the test expects it. */
interface OpenAIAnswer {
  results: ResultJson[];
  messages: { role: 'tool'; tool_call_id: string; content: string }[];
}

/** The answer to the Anthropic form, as the test expects it. */
interface AnthropicAnswer {
  results: ResultJson[];
  tool_results: { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean }[];
}

/** The JSON Schema of a tool's input, as both SDKs take it (an object schema). */
interface ObjectSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

interface OpenAIToolsAnswer {
  tools: { type: 'function'; function: { name: string; description: string; parameters: ObjectSchema } }[];
}

interface AnthropicToolsAnswer {
  tools: { name: string; description: string; input_schema: ObjectSchema }[];
}

let dataDir: string;
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-sdk-formats-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  app = createHttpApp(ts);
});

afterAll(() => {
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function post<T>(body: unknown): Promise<T> {
  const response = await callApp(app, 'POST', '/api/v1/tool-calls', { body });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

const listTools = (query = '') => callApp(app, 'GET', `/api/v1/tools${query}`);

async function tools<T>(format: string): Promise<T> {
  const response = await listTools(`?format=${format}`);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** An assistant turn as the OpenAI SDK returns it: one good call, one with bad arguments, one unknown tool. */
const openAIMessage: ChatCompletionMessage = {
  role: 'assistant',
  content: null,
  refusal: null,
  tool_calls: [
    { id: 'call_ok', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6 * 7"}' } },
    { id: 'call_bad', type: 'function', function: { name: 'calculator', arguments: '{"expression": 7}' } },
    { id: 'call_unknown', type: 'function', function: { name: 'no_such_tool', arguments: '{}' } },
  ],
};

/** The same turn as the Anthropic SDK returns it, text block and all. */
const anthropicContent: Message['content'] = [
  { type: 'text', text: 'Let me compute that.', citations: null },
  { type: 'tool_use', id: 'toolu_ok', name: 'calculator', input: { expression: '6 * 7' }, caller: { type: 'direct' } },
  { type: 'tool_use', id: 'toolu_bad', name: 'calculator', input: { expression: 7 }, caller: { type: 'direct' } },
  { type: 'tool_use', id: 'toolu_unknown', name: 'no_such_tool', input: {}, caller: { type: 'direct' } },
];

const isToolUse = (block: ContentBlock): block is ToolUseBlock => block.type === 'tool_use';
const isFunctionCall = (call: NonNullable<ChatCompletionMessage['tool_calls']>[number]) => call.type === 'function';

describe('POST /api/v1/tool-calls in both SDKs’ forms', () => {
  it('takes OpenAI ChatCompletionMessageToolCall[] and answers ChatCompletionToolMessageParam messages', async () => {
    const toolCalls: ChatCompletionMessageFunctionToolCall[] = (openAIMessage.tool_calls ?? []).filter(isFunctionCall);
    const answer = await post<OpenAIAnswer>({ session_id: 'sdk-openai', tool_calls: toolCalls });
    const toolMessages: ChatCompletionToolMessageParam[] = answer.messages;
    // The conversation goes on with the SDK's own message list: the assistant turn, then the results.
    const conversation: ChatCompletionMessageParam[] = [openAIMessage, ...toolMessages];
    expect(conversation).toHaveLength(4);

    expect(answer.results.map((r) => r.tool_call_id)).toEqual(['call_ok', 'call_bad', 'call_unknown']);
    expect(answer.results.map((r) => r.status)).toEqual(['succeeded', 'failed', 'failed']);
    toolMessages.forEach((message, i) => {
      expect(Object.keys(message).sort()).toEqual(['content', 'role', 'tool_call_id']);
      expect(message.role).toBe('tool');
      expect(message.tool_call_id).toBe(answer.results[i]?.tool_call_id);
      expect(typeof message.content).toBe('string');
    });
    expect(toolMessages[0]?.content).toContain('42');
    expect(toolMessages[1]?.content).toContain('INVALID_ARGUMENTS');
    expect(toolMessages[2]?.content).toContain('UNKNOWN_TOOL');
  });

  it('takes Anthropic ToolUseBlock[] from a Message’s content and answers ToolResultBlockParam blocks', async () => {
    const toolUse: ToolUseBlock[] = anthropicContent.filter(isToolUse);
    const answer = await post<AnthropicAnswer>({ session_id: 'sdk-anthropic', tool_use: toolUse });
    const toolResults: ToolResultBlockParam[] = answer.tool_results;
    // The next user turn is the SDK's own MessageParam with the blocks as its content.
    const nextTurn: MessageParam = { role: 'user', content: toolResults };
    expect(nextTurn.content).toHaveLength(3);

    expect(answer.results.map((r) => r.tool_call_id)).toEqual(['toolu_ok', 'toolu_bad', 'toolu_unknown']);
    expect(answer.results.map((r) => r.status)).toEqual(['succeeded', 'failed', 'failed']);
    expect(answer).not.toHaveProperty('messages');
    toolResults.forEach((block, i) => {
      expect(Object.keys(block).sort()).toEqual(['content', 'is_error', 'tool_use_id', 'type']);
      expect(block.type).toBe('tool_result');
      expect(block.tool_use_id).toBe(toolUse[i]?.id);
      expect(typeof block.content).toBe('string');
    });
    expect(toolResults.map((block) => block.is_error)).toEqual([false, true, true]);

    // The same text the OpenAI form gives the model, call for call: one formatter for both.
    const openai = await post<OpenAIAnswer>({
      tool_calls: (openAIMessage.tool_calls ?? []).filter(isFunctionCall),
    });
    expect(toolResults.map((block) => block.content)).toEqual(openai.messages.map((message) => message.content));
    const trace = ts.store.get(answer.results[0]?.trace_id ?? '');
    expect(trace).toMatchObject({ toolCallId: 'toolu_ok', sessionId: 'sdk-anthropic', status: 'succeeded' });
  });

  it('answers a call awaiting approval as a tool_result that is not an error, with where its outcome will be', async () => {
    const block: ToolUseBlock = {
      type: 'tool_use',
      id: 'toolu_write',
      name: 'write_file',
      input: { path: 'sdk.txt', content: 'x' },
      caller: { type: 'direct' },
    };
    const answer = await post<AnthropicAnswer>({ wait: false, tool_use: [block] });
    const [result] = answer.results;
    expect(result).toMatchObject({ tool_call_id: 'toolu_write', status: 'awaiting_approval' });
    const toolResult: ToolResultBlockParam | undefined = answer.tool_results[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_write', is_error: false });
    expect(toolResult?.content).toContain(`/api/v1/traces/${result?.trace_id}`);
    await ts.executor.cancel(result?.trace_id ?? '', { by: 'test' });
  });
});

describe('GET /api/v1/tools?format= as the SDKs’ tool parameters', () => {
  it('format=openai is ChatCompletionTool[]: function tools with an object schema for each registered tool', async () => {
    const answer = await tools<OpenAIToolsAnswer>('openai');
    const sdkTools = answer.tools satisfies ChatCompletionTool[];
    const names = ts.executor.registry
      .list()
      .map((tool) => tool.name)
      .sort();
    expect(sdkTools.map((tool) => tool.function.name).sort()).toEqual(names);
    for (const tool of sdkTools) {
      expect(Object.keys(tool).sort()).toEqual(['function', 'type']);
      expect(tool.type).toBe('function');
      expect(Object.keys(tool.function).sort()).toEqual(['description', 'name', 'parameters']);
      expect(tool.function.description.length).toBeGreaterThan(0);
      expect(tool.function.parameters.type).toBe('object');
      expect(tool.function.parameters).not.toHaveProperty('$schema');
    }
  });

  it('format=anthropic is Tool[]: name, description and an object input_schema, the same schema as OpenAI’s', async () => {
    const answer = await tools<AnthropicToolsAnswer>('anthropic');
    const sdkTools = answer.tools satisfies Tool[];
    const openai = await tools<OpenAIToolsAnswer>('openai');
    expect(sdkTools.map((tool) => tool.name)).toEqual(openai.tools.map((tool) => tool.function.name));
    sdkTools.forEach((tool, i) => {
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(tool.input_schema.type).toBe('object');
      expect(tool.description).toBe(openai.tools[i]?.function.description);
      expect(tool.input_schema).toEqual(openai.tools[i]?.function.parameters);
    });
    const calculator = sdkTools.find((tool) => tool.name === 'calculator');
    expect(calculator?.input_schema.required).toEqual(['expression']);
  });

  it('without format keeps its own answer; an unknown format is a 400 naming format', async () => {
    const own = (await (await listTools()).json()) as {
      tools: { name: string; policy: string; input_schema: ObjectSchema }[];
    };
    expect(own.tools[0]).toHaveProperty('policy');
    const bad = await listTools('?format=gemini');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'INVALID_QUERY', message: expect.stringMatching(/^format: /) } });
  });
});
