import type { McpServerConfig } from '../../config';
import { defineTool } from '../../executor/define-tool';
import { jsonSchemaInput } from '../../executor/json-schema-input';
import type { Registry } from '../../executor/registry';
import type { AnyTool } from '../../executor/types';
import { type ToolRelabel, UpstreamServer, type UpstreamServerStatus } from './upstream-server';
import { ownedBy } from './upstream-tool';

/** The upstream MCP servers of the config, their connections and their tools in the registry. */
export interface UpstreamServers {
  /** Starts connecting every server; returns at once (the app serves while they connect). */
  start(): void;
  /** Every server, in the config's order. */
  list(): UpstreamServerStatus[];
  get(name: string): UpstreamServerStatus | null;
  /** Reconnects one server now and resolves with its status once the attempt is over; null for an unknown name. */
  reconnect(name: string): Promise<UpstreamServerStatus | null>;
  /**
   * A stand-in for a tool of a configured server that is not registered (yet): permission rules
   * naming `fs__write_file(notes/**)` compile before the server has connected.
   */
  placeholder(name: string): AnyTool | undefined;
  /**
   * For a tool of a configured server (`fs__write_file`): resolves once the server's first attempt
   * to connect is over (connected or not). Null for any other name.
   */
  firstAttempt(tool: string): Promise<void> | null;
  /** Stops every server (their processes end); no reconnect follows. */
  close(): Promise<void>;
}

const anyObject = jsonSchemaInput({ type: 'object' });

/**
 * Builds the servers of `configs` over `registry`.
 * @param changed told the server whose state or tools changed (the event bus's `event: tools`).
 */
export function createUpstreamServers(options: {
  configs: readonly McpServerConfig[];
  registry: Registry;
  changed: (server: string) => void;
  /** Scrubs secrets from what servers say (stderr lines, errors) before it is kept or shown. */
  scrub?: (text: string) => string;
  /** Told of each tool a server relabelled (its annotations changed after it was first listed). */
  relabelled?: (server: string, relabel: ToolRelabel) => void;
}): UpstreamServers {
  const { registry, changed } = options;
  const servers = new Map<string, UpstreamServer>();
  for (const config of options.configs) {
    const owns = ownedBy(config.name);
    servers.set(
      config.name,
      new UpstreamServer({
        config,
        setTools: (tools) => registry.replace(owns, tools),
        changed: () => changed(config.name),
        scrub: options.scrub,
        relabelled: (relabel) => options.relabelled?.(config.name, relabel),
      }),
    );
  }
  const placeholders = new Map<string, AnyTool>();
  const first = new Map<string, Promise<void>>();
  const serverOf = (tool: string) => {
    const at = tool.indexOf('__');
    return at > 0 ? servers.get(tool.slice(0, at)) : undefined;
  };
  return {
    start() {
      for (const server of servers.values()) first.set(server.name, server.connect());
    },
    firstAttempt(tool) {
      const server = serverOf(tool);
      return server ? (first.get(server.name) ?? Promise.resolve()) : null;
    },
    list: () => [...servers.values()].map((server) => server.status()),
    get: (name) => servers.get(name)?.status() ?? null,
    async reconnect(name) {
      const server = servers.get(name);
      if (!server) return null;
      await server.reconnect();
      return server.status();
    },
    placeholder(name) {
      const server = serverOf(name);
      if (!server) return undefined;
      const at = name.indexOf('__');
      let tool = placeholders.get(name);
      if (!tool) {
        tool = defineTool({
          name,
          description: `A tool of the MCP server "${server.name}", not listed by it yet`,
          inputSchema: anyObject,
          sideEffect: 'write',
          // The server's subject for this name: a rule compiled now matches the tool once listed.
          permissionSubject: server.pathSubject(name),
          availability: () => ({
            available: false,
            reason: `The MCP server "${server.name}" has not listed a tool "${name.slice(at + 2)}".`,
          }),
          execute: () => {
            throw new Error(`${name} is not registered`);
          },
        });
        placeholders.set(name, tool);
      }
      return tool;
    },
    async close() {
      await Promise.all([...servers.values()].map((server) => server.close()));
    },
  };
}
