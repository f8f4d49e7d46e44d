import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import { createRegistry, type Registry } from '../../executor/registry';
import { createHttpRequestTool, createReadFileTool, createRunShellTool, createWriteFileTool } from '../../tools';

/**
 * The built-in tools that take specifiers (files, shell, HTTP) and one that takes none
 * (`note`), for rule tests. Nothing runs: the workspace is only named.
 */
export function createPolicyTestRegistry(): Registry {
  const workspace = '/nonexistent-toolscope-workspace';
  return createRegistry([
    createReadFileTool({ workspace }),
    createWriteFileTool({ workspace }),
    createRunShellTool({ workspace, allow: ['git', 'npm', 'ls'] }),
    createHttpRequestTool({ allowHosts: ['api.example.com'] }),
    defineTool({
      name: 'note',
      description: 'Keeps a note',
      sideEffect: 'write',
      inputSchema: z.object({ text: z.string() }),
      execute: ({ text }) => ({ text }),
    }),
  ]);
}
