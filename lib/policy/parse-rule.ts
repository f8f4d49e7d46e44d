/** The three rule lists of the config file and the Policy page. */
export type RuleList = 'allow' | 'ask' | 'deny';

/** The order the lists are consulted in: a deny rule beats an ask rule beats an allow rule. */
export const RULE_LISTS = ['deny', 'ask', 'allow'] as const satisfies readonly RuleList[];

/** A rule string taken apart: `run_shell(git status)` → tool `run_shell`, specifier `git status`. */
export interface ParsedRule {
  tool: string;
  /** Null for a tool-wide rule (`write_file`), which matches every call of the tool. */
  specifier: string | null;
}

export type ParseRuleResult = { ok: true; rule: ParsedRule } | { ok: false; message: string };

// The names `defineTool` accepts; a rule for any other name could never match.
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_RULE_CHARS = 4096;

/**
 * Parses a rule in Claude Code's style: `tool` or `tool(specifier)`. What the specifier means
 * is the tool's business (`PermissionSubject`); here only the shape is checked, with messages
 * written for the person editing the config file or the Policy page.
 * @example parseRule('run_shell(npm run *)') // { ok: true, rule: { tool: 'run_shell', specifier: 'npm run *' } }
 */
export function parseRule(text: string): ParseRuleResult {
  const trimmed = text.trim();
  if (trimmed === '') return fail('is empty; write a tool name, e.g. "read_file", or "tool(specifier)"');
  if (trimmed.length > MAX_RULE_CHARS) return fail(`is longer than ${MAX_RULE_CHARS} characters`);
  const open = trimmed.indexOf('(');
  if (open === -1) {
    if (trimmed.endsWith(')')) return fail(`"${trimmed}" has a ")" without a "("`);
    return TOOL_NAME.test(trimmed) ? { ok: true, rule: { tool: trimmed, specifier: null } } : badName(trimmed);
  }
  const tool = trimmed.slice(0, open);
  if (!TOOL_NAME.test(tool)) return badName(tool);
  if (!trimmed.endsWith(')')) return fail(`"${trimmed}" has no closing ")"; write "${tool}(specifier)"`);
  const specifier = trimmed.slice(open + 1, -1).trim();
  if (specifier === '') {
    return fail(`"${trimmed}" has an empty specifier; write "${tool}" for every call of ${tool}`);
  }
  return { ok: true, rule: { tool, specifier } };
}

/** The rule as it reads best: the tool, and the specifier without padding. */
export function formatRule(rule: ParsedRule): string {
  return rule.specifier === null ? rule.tool : `${rule.tool}(${rule.specifier})`;
}

function fail(message: string): ParseRuleResult {
  return { ok: false, message: `The rule ${message}.` };
}

function badName(name: string): ParseRuleResult {
  return fail(
    `names the tool "${name}", which is not a tool name (1-64 letters, digits, "_" or "-"); write "tool" or "tool(specifier)"`,
  );
}
