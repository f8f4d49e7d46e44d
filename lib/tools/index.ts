import type { ZodTool } from '../executor/define-tool';
import type { TracePropagation } from '../otel/trace-context';
import { createCalculatorTool } from './calculator';
import type { CalculatorPool } from './calculator-pool';
import { createHttpRequestTool } from './http-request';
import type { ShellSandbox } from './process-sandbox';
import { createReadFileTool } from './read-file';
import { createRunShellTool } from './run-shell';
import { type ToolSettings, withToolSettings } from './tool-settings';
import { createWriteFileTool } from './write-file';

export { BUILTIN_TOOL_NAMES, type BuiltinToolName } from './builtin-tool-names';
export { type CalculatorInput, type CalculatorOutput, createCalculatorTool } from './calculator';
export { type CalculatorPool, createCalculatorPool } from './calculator-pool';
export { DEFAULT_HTTP_ALLOW } from './host-allowlist';
export {
  createHttpRequestTool,
  type HttpRequestInput,
  type HttpRequestOptions,
  type HttpRequestOutput,
  httpSideEffect,
} from './http-request';
export {
  describeShellSandbox,
  detectShellSandbox,
  type SandboxSetting,
  type ShellSandbox,
} from './process-sandbox';
export { createReadFileTool, type ReadFileInput, type ReadFileOptions, type ReadFileOutput } from './read-file';
export { createRunShellTool, type RunShellInput, type RunShellOptions } from './run-shell';
export { resolveInWorkspace, type WorkspacePath } from './sandbox';
export { type ToolSettings, withToolSettings } from './tool-settings';
export { createWriteFileTool, type WriteFileInput, type WriteFileOptions, type WriteFileOutput } from './write-file';

/** What the built-in tools need from the app's config. */
export interface BuiltinToolsOptions {
  /** The sandbox folder for the file tools and the shell. */
  workspace: string;
  /** Programs `run_shell` may run, by bare name. Empty: every command is refused. */
  shellAllow: string[];
  /** What `run_shell` runs programs in; default: bubblewrap where it works, else refused. */
  shellSandbox?: ShellSandbox;
  /** Hosts `http_request` may reach (`localhost`, `host:port`, `*.example.com`). Empty: every request is refused. */
  httpAllow: string[];
  /** Size limit of `read_file` and `write_file`. Default 1 MiB. */
  maxFileBytes?: number;
  /** Addresses `http_request` must refuse even when allowed: the app's own. */
  httpDeny?: string[];
  /** Response body cap of `http_request`. Default 1 MiB. */
  maxResponseBytes?: number;
  /**
   * The path of the `toolscope.config.json` in use, or null when none is (the defaults): named in
   * the allowlist refusals, so a person knows which file to edit.
   */
  configFile: string | null;
  /** The calculator's workers, so their owner can close them; default: a pool shared by the process. */
  calculatorPool?: CalculatorPool;
  /** The trace context `http_request` sends on; default: the one the call arrived with. */
  propagation?: TracePropagation;
  /** Per tool, the config's timeout, attempts and breaker (`tools.<name>`), over each tool's defaults. */
  settings?: Readonly<Record<string, ToolSettings>>;
}

/**
 * Creates the built-in tools from the app's config, in the order a catalog shows them.
 * @example createBuiltinTools({ workspace, shellAllow: ['ls'], httpAllow: ['localhost'], configFile: null })
 */
/** Toolscope's own tools: every one has a zod schema. */
// biome-ignore lint/suspicious/noExplicitAny: a list holds tools of every input type.
export function createBuiltinTools(options: BuiltinToolsOptions): ZodTool<any, any>[] {
  const { workspace, maxFileBytes, configFile } = options;
  const tools = [
    createCalculatorTool({ pool: options.calculatorPool }),
    createReadFileTool({ workspace, maxBytes: maxFileBytes }),
    createWriteFileTool({ workspace, maxBytes: maxFileBytes }),
    createRunShellTool({ workspace, allow: options.shellAllow, configFile, sandbox: options.shellSandbox }),
    createHttpRequestTool({
      allowHosts: options.httpAllow,
      denyHosts: options.httpDeny,
      maxResponseBytes: options.maxResponseBytes,
      configFile,
      propagation: options.propagation,
    }),
  ];
  return tools.map((tool) => withToolSettings(tool, options.settings?.[tool.name]));
}
