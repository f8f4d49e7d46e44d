import { PolicyBadge, SideEffectLabel } from '../tools/policy-badge';
import type { PolicyToolInfo } from './specifier';

/** Each tool's decision when no rule matches its call: the `policies` map, else its side effect's default. */
export function ToolDefaults({ tools }: { tools: PolicyToolInfo[] }) {
  return (
    <section aria-labelledby="defaults-title" className="flex flex-col gap-1.5" data-testid="tool-defaults">
      <h2 id="defaults-title" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        When no rule matches
      </h2>
      <div className="overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left text-[12px]">
          <caption className="sr-only">Each tool's policy when no rule matches</caption>
          <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className="px-2 py-1 font-medium">
                Tool
              </th>
              <th scope="col" className="px-2 py-1 font-medium">
                Side effect
              </th>
              <th scope="col" className="px-2 py-1 font-medium">
                Decision
              </th>
              <th scope="col" className="px-2 py-1 font-medium">
                Specifier
              </th>
            </tr>
          </thead>
          <tbody>
            {tools.map((tool) => (
              <tr
                key={tool.name}
                className="border-t border-line align-top"
                data-testid="tool-default"
                data-tool={tool.name}
                data-policy={tool.noRule.policy}
              >
                <td className="px-2 py-1 font-mono font-medium">{tool.name}</td>
                <td className="px-2 py-1">
                  <SideEffectLabel effect={tool.sideEffect} />
                </td>
                <td className="px-2 py-1">
                  <div className="flex flex-col gap-0.5">
                    {tool.noRuleRead ? (
                      <span className="flex items-center gap-1">
                        <PolicyBadge policy={tool.noRuleRead.policy} text={tool.noRuleRead.policy} />
                        <span className="whitespace-nowrap font-mono text-[11px] text-fg-muted">
                          reads: {tool.noRuleRead.rule}
                        </span>
                      </span>
                    ) : null}
                    <span className="flex items-center gap-1">
                      <PolicyBadge policy={tool.noRule.policy} text={tool.noRule.policy} />
                      <span className="whitespace-nowrap font-mono text-[11px] text-fg-muted">{tool.noRule.rule}</span>
                    </span>
                  </div>
                </td>
                <td className="px-2 py-1 text-[11px] text-fg-muted">{tool.specifier ?? 'tool-wide rules only'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
