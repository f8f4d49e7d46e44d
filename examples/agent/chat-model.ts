import type { OpenAITool, OpenAIToolCallInput, ToolCallResult } from '../../lib/client';

/** A message of an OpenAI chat-completions conversation, as far as the agent uses them. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: AssistantToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call as a chat-completions model returns it (arguments as a JSON string). */
export type AssistantToolCall = OpenAIToolCallInput & { type: 'function'; function: { arguments: string } };

/** The model's turn: what it said, and the tools it wants called (none: it has answered). */
export interface AssistantTurn {
  role: 'assistant';
  content: string | null;
  tool_calls?: AssistantToolCall[];
}

export interface CompletionRequest {
  messages: ChatMessage[];
  tools: OpenAITool[];
  /** The outcomes of the previous turn's calls, in order (empty on the first turn). */
  previous: ToolCallResult[];
  signal?: AbortSignal;
}

/** Where the agent's turns come from: a model behind a chat-completions endpoint, or a transcript. */
export interface ChatModel {
  /** Sent with each batch as `assistant_message.model`. */
  readonly name: string;
  complete(request: CompletionRequest): Promise<AssistantTurn>;
}

export interface ChatCompletionsOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), a vLLM or LiteLLM server. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  fetch?: typeof fetch;
}

/**
 * A model behind any OpenAI-compatible `POST /chat/completions` endpoint, over `fetch`: the
 * conversation and the tools go in, the first choice's message comes out. A non-2xx answer throws
 * with the endpoint's own message.
 */
export function createChatCompletionsModel(options: ChatCompletionsOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    name: options.model,
    async complete({ messages, tools, signal }) {
      const response = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: options.model, messages, tools, tool_choice: 'auto' }),
        signal,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}: ${text.slice(0, 500)}`);
      const body = JSON.parse(text) as { choices?: { message?: AssistantTurn }[] };
      const message = body.choices?.[0]?.message;
      if (!message) throw new Error(`${url} answered without choices[0].message: ${text.slice(0, 500)}`);
      const calls = message.tool_calls?.filter((call) => call.type === 'function');
      return { role: 'assistant', content: message.content ?? null, ...(calls?.length ? { tool_calls: calls } : {}) };
    },
  };
}
