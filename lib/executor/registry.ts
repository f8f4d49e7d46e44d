import type { AnyTool } from './types';

export interface Registry {
  register(tool: AnyTool): void;
  /** Returns whether a tool of that name was registered. */
  unregister(name: string): boolean;
  get(name: string): AnyTool | undefined;
  list(): AnyTool[];
}

/**
 * Creates the set of tools an executor can call. Names are unique: registering a second tool
 * under a taken name throws, so one tool never silently shadows another.
 */
export function createRegistry(tools: readonly AnyTool[] = []): Registry {
  const byName = new Map<string, AnyTool>();
  const registry: Registry = {
    register(tool) {
      if (byName.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered`);
      byName.set(tool.name, tool);
    },
    unregister: (name) => byName.delete(name),
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
  };
  for (const tool of tools) registry.register(tool);
  return registry;
}
