import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../executor/errors';

type ContentBlock = CallToolResult['content'][number];

/**
 * A content block as the trace and the model get it: text as is; images, audio and embedded
 * resources as a descriptor (type, MIME type, size) rather than their base64 bytes.
 */
export function describeContent(block: ContentBlock): unknown {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, mime_type: block.mimeType, bytes: Math.floor((block.data.length * 3) / 4) };
    case 'resource': {
      const resource = block.resource;
      return 'text' in resource && typeof resource.text === 'string'
        ? { type: 'resource', uri: resource.uri, mime_type: resource.mimeType ?? null, text: resource.text }
        : {
            type: 'resource',
            uri: resource.uri,
            mime_type: resource.mimeType ?? null,
            bytes: Math.floor(((resource as { blob?: string }).blob?.length ?? 0) * 0.75),
          };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: block.uri, name: block.name, mime_type: block.mimeType ?? null };
    default:
      return block;
  }
}

/** The text of a result's text blocks, one per line. */
function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((block): block is Extract<ContentBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * What a `tools/call` result becomes: its `structuredContent` when it has one, else its content
 * (the text joined when it is all text, else one descriptor per block). `isError: true` is a
 * failed call: a business error whose message is the result's text.
 */
export function outputOfCallResult(result: CallToolResult, tool: string): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = textOf(content).trim();
    throw ToolError.business('UPSTREAM_TOOL_ERROR', text || `${tool} reported an error without a message.`, {
      hint: 'The MCP server ran the tool and it failed: read the message, fix the arguments or try another approach.',
      ...(content.some((block) => block.type !== 'text') ? { details: { content: content.map(describeContent) } } : {}),
    });
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  if (content.every((block) => block.type === 'text')) return textOf(content);
  return content.map(describeContent);
}
