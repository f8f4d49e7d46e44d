/** The built-in tools' names: what the config's `tools` section may name (checked against the tools in a test). */
export const BUILTIN_TOOL_NAMES = ['calculator', 'http_request', 'read_file', 'run_shell', 'write_file'] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];
