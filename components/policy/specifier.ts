/** What the Policy page knows of a tool to write a rule for it. */
export interface PolicyToolInfo {
  name: string;
  sideEffect: 'none' | 'read' | 'write' | 'exec';
  /** What a specifier of this tool matches (its permission subject); null: tool-wide rules only. */
  specifier: string | null;
  /** What happens to a call no rule matches: the `policies` map or the side-effect default. */
  noRule: { policy: 'allow' | 'ask' | 'deny'; rule: string };
  /** For tools whose side effect depends on the call (HTTP GET reads): the no-rule policy of reads. */
  noRuleRead: { policy: 'allow' | 'ask' | 'deny'; rule: string } | null;
}

/** An example specifier from a subject's description (`…, e.g. notes/** or *.md` → `notes/**`). */
export function specifierExample(description: string | null): string {
  if (!description) return '';
  const example = /\be\.g\.\s+(.+)$/.exec(description)?.[1];
  if (!example) return '';
  return (example.split(/\s+or\s+/)[0] as string).trim();
}

/**
 * The rule text for a tool and a specifier: `tool` when the specifier is blank (every call of the
 * tool), else `tool(specifier)`.
 * @example ruleText('run_shell', ' npm run * ') // 'run_shell(npm run *)'
 */
export function ruleText(tool: string, specifier: string): string {
  const trimmed = specifier.trim();
  return trimmed === '' ? tool : `${tool}(${trimmed})`;
}

/** A rule's text taken apart for display: tool and specifier (null for a tool-wide rule). */
export function splitRule(rule: string): { tool: string; specifier: string | null } {
  const trimmed = rule.trim();
  const open = trimmed.indexOf('(');
  if (open === -1 || !trimmed.endsWith(')')) return { tool: trimmed, specifier: null };
  return { tool: trimmed.slice(0, open), specifier: trimmed.slice(open + 1, -1).trim() };
}
