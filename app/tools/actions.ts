'use server';

import type { ToolInfo } from '@/components/tools/tools-overview';
import { getToolscope } from '@/lib/server/toolscope';
import { principalFor } from '../_lib/principal';
import { toolCatalog } from './catalog';

/** The registered tools now, for the tools page's live catalog (refetched when `event: tools` arrives). */
export async function loadToolCatalog(): Promise<ToolInfo[]> {
  if (!(await principalFor('tools.list')).ok) return [];
  return toolCatalog(getToolscope());
}
