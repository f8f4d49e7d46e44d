import type { AnyTool, SideEffect } from './types';

/** The side effect of one call: the tool's own answer for this input, or its declared worst case. */
export function sideEffectOf(tool: AnyTool, input: unknown): SideEffect {
  if (!tool.sideEffectOf) return tool.sideEffect;
  try {
    return tool.sideEffectOf(input);
  } catch {
    return tool.sideEffect;
  }
}
