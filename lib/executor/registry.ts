import type { AnyTool } from './types';

/** What changed in a registry: the tools added, removed, or replaced under the same name. */
export interface RegistryChange {
  type: 'registered' | 'unregistered' | 'updated';
  names: string[];
}

export interface Registry {
  register(tool: AnyTool): void;
  /** Returns whether a tool of that name was registered. */
  unregister(name: string): boolean;
  /**
   * Makes `tools` the set of tools whose names `owns` claims (one MCP server's tools): the ones
   * it no longer lists go, new ones come, the others are replaced. One notification per kind of
   * change. Throws, changing nothing, when a new name is taken by a tool `owns` does not claim.
   */
  replace(owns: (name: string) => boolean, tools: readonly AnyTool[]): void;
  get(name: string): AnyTool | undefined;
  list(): AnyTool[];
  /** Tells `listener` of every change from now on; returns the function that stops it. */
  onChange(listener: (change: RegistryChange) => void): () => void;
}

/**
 * Creates the set of tools an executor can call. Names are unique: registering a second tool
 * under a taken name throws, so one tool never silently shadows another. The set may change at
 * runtime (MCP servers connect and change their lists); every change is told to the listeners.
 */
export function createRegistry(tools: readonly AnyTool[] = []): Registry {
  const byName = new Map<string, AnyTool>();
  const listeners = new Set<(change: RegistryChange) => void>();
  const notify = (type: RegistryChange['type'], names: string[]) => {
    if (names.length === 0) return;
    for (const listener of listeners) {
      try {
        listener({ type, names });
      } catch (error) {
        console.error('[toolscope] a registry listener failed:', error);
      }
    }
  };
  const registry: Registry = {
    register(tool) {
      if (byName.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered`);
      byName.set(tool.name, tool);
      notify('registered', [tool.name]);
    },
    unregister(name) {
      const removed = byName.delete(name);
      if (removed) notify('unregistered', [name]);
      return removed;
    },
    replace(owns, next) {
      const nextNames = new Set<string>();
      for (const tool of next) {
        if (nextNames.has(tool.name)) throw new Error(`A tool named "${tool.name}" is listed twice`);
        nextNames.add(tool.name);
        if (byName.has(tool.name) && !owns(tool.name)) {
          throw new Error(`A tool named "${tool.name}" is already registered`);
        }
      }
      const removed = [...byName.keys()].filter((name) => owns(name) && !nextNames.has(name));
      for (const name of removed) byName.delete(name);
      const added: string[] = [];
      const updated: string[] = [];
      for (const tool of next) {
        const before = byName.get(tool.name);
        if (before === tool) continue;
        (before ? updated : added).push(tool.name);
        byName.set(tool.name, tool);
      }
      notify('unregistered', removed);
      notify('registered', added);
      notify('updated', updated);
    },
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
  for (const tool of tools) registry.register(tool);
  return registry;
}
