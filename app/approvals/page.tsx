import type { Metadata } from 'next';
import { ApprovalsView } from '@/components/approvals/approvals-view';
import { approvalsJson } from '@/lib/api/approvals';
import { getToolscope } from '@/lib/server/toolscope';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { formSchemaOf } from '@/lib/ui/tool-info';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = { title: 'Approvals' };

/**
 * The approval queue, rendered from the queue as it is now (the API's JSON), then kept live in
 * the browser. The tools' input schemas go along for "Approve with edits".
 */
export default async function ApprovalsPage() {
  const ts = getToolscope();
  const schemas: Record<string, JsonSchema> = {};
  for (const tool of ts.executor.registry.list()) schemas[tool.name] = formSchemaOf(tool);
  return <ApprovalsView initial={{ approvals: (await approvalsJson(ts)).approvals, skewMs: 0 }} schemas={schemas} />;
}
