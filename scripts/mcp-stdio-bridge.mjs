#!/usr/bin/env node
// A stdio MCP server that forwards every message to Toolscope's Streamable HTTP endpoint, for
// MCP clients that start servers as commands (Claude Desktop). Nothing is downloaded: it uses the
// SDK installed with Toolscope.
//
//   node scripts/mcp-stdio-bridge.mjs [url]      (default http://127.0.0.1:3000/mcp)
//   TOOLSCOPE_TOKEN=…                            sent as "Authorization: Bearer …" when set
//
// 1. Messages from stdin are sent to `/mcp` in order; a request that cannot be delivered is
//    answered on stdout with a JSON-RPC error saying why, so the client is never left waiting.
// 2. Messages from Toolscope (answers, progress, list changes) are written to stdout; the
//    answer to `initialize` sets the protocol version the HTTP transport sends from then on.
// 3. When Toolscope no longer knows the session (it restarted, or the session expired: 404), the
//    bridge opens a new one with the client's own `initialize` and sends the message again.
// 4. When stdin ends, the session is ended (DELETE) and the bridge exits.
// Logs go to stderr (clients keep it in their MCP logs); stdout carries only protocol messages.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const url = new URL(process.argv[2] ?? process.env.TOOLSCOPE_MCP_URL ?? 'http://127.0.0.1:3000/mcp');
const token = process.env.TOOLSCOPE_TOKEN;
const log = (message) => process.stderr.write(`[toolscope-bridge] ${message}\n`);

const stdio = new StdioServerTransport();
/** The client's `initialize`, replayed when Toolscope has forgotten the session. */
let initialize = null;
let protocolVersion = null;
/** Answers the bridge waits for itself (a replayed `initialize`), by request id. */
const ownRequests = new Map();
let http = openHttp();
let queue = Promise.resolve();
let closing = false;

function openHttp() {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  });
  transport.onmessage = (message) => {
    if ('id' in message && ownRequests.has(message.id)) {
      ownRequests.get(message.id)(message);
      ownRequests.delete(message.id);
      return;
    }
    if (initialize && 'id' in message && message.id === initialize.id && message.result?.protocolVersion) {
      protocolVersion = message.result.protocolVersion;
      transport.setProtocolVersion(protocolVersion);
    }
    stdio.send(message).catch((error) => log(`could not write to stdout: ${error.message}`));
  };
  transport.onerror = (error) => {
    if (!closing) log(`${url.href}: ${error.message}`);
  };
  return transport;
}

/** A new session on a new transport, initialized as the client initialized its first one. */
async function reopen() {
  log('Toolscope no longer knows the session (restarted or expired); opening a new one');
  const old = http;
  http = openHttp();
  old.close().catch(() => {});
  await http.start();
  const id = `toolscope-bridge-${Date.now()}`;
  const answered = new Promise((resolve) => ownRequests.set(id, resolve));
  await http.send({ ...initialize, id });
  const answer = await answered;
  if (answer.error) throw new Error(`initialize: ${answer.error.message}`);
  protocolVersion = answer.result.protocolVersion;
  http.setProtocolVersion(protocolVersion);
  await http.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

async function forward(message) {
  if (message.method === 'initialize' && 'id' in message) initialize = message;
  try {
    await http.send(message);
  } catch (error) {
    if (error?.code !== 404 || !initialize || message === initialize) throw error;
    await reopen();
    await http.send(message);
  }
}

stdio.onmessage = (message) => {
  queue = queue
    .then(() => forward(message))
    .catch((error) => {
      log(`could not deliver ${message.method ?? 'a message'}: ${error.message}`);
      if (!('id' in message) || !('method' in message)) return;
      const text = `Toolscope at ${url.href} could not be reached or refused the request: ${error.message}`;
      return stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: text } });
    });
};
stdio.onerror = (error) => log(`stdin: ${error.message}`);

async function shutdown() {
  if (closing) return;
  closing = true;
  await queue.catch(() => {});
  try {
    if (http.sessionId) await http.terminateSession();
  } catch {
    // Toolscope is gone already: nothing to end.
  }
  await http.close().catch(() => {});
  process.exit(0);
}
process.stdin.on('end', shutdown);
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

await http.start();
await stdio.start();
