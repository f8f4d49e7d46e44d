import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { MIN_TOKEN_LENGTH } from './access/access-token';
import { parseRule } from './policy/parse-rule';
import { compareSection } from './replay/compare-settings';
import { BUILTIN_TOOL_NAMES } from './tools/builtin-tool-names';
import type { ToolSettings } from './tools/tool-settings';

const policy = z.enum(['allow', 'ask', 'deny']);

/**
 * A permission rule: `"tool"`, `"tool(specifier)"`, or `{ "rule": ..., "session": ... }` for a
 * rule limited to one session. The syntax is checked here; whether the tool exists and takes that
 * specifier is checked once the tools are known (`createPolicyStore`).
 */
const permissionRule = z
  .union([z.string(), z.object({ rule: z.string(), session: z.string().trim().min(1).max(256) }).strict()], {
    error: 'a rule such as "run_shell(git status)", or { "rule": "...", "session": "..." } for one session',
  })
  .transform((value, ctx) => {
    const entry = typeof value === 'string' ? { rule: value, session: null } : value;
    const parsed = parseRule(entry.rule);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.message, path: typeof value === 'string' ? [] : ['rule'] });
      return z.NEVER;
    }
    return { rule: entry.rule.trim(), session: entry.session };
  });

const MCP_SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

/**
 * One upstream MCP server: a program spoken to over stdio (`command`, `args`, `env`, `cwd`) or a
 * Streamable HTTP endpoint (`url`, `headers`), plus its calls' limits, whether its annotations are
 * trusted, the folders its relative paths lead to, and per-tool overrides.
 */
const mcpServer = z
  .object({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(),
    headers: z.record(z.string().min(1), z.string()).optional(),
    timeout_ms: z.number().int().min(100).max(3_600_000).optional(),
    retries: z.number().int().min(1).max(10).optional(),
    trustAnnotations: z
      .boolean()
      .optional()
      .describe("Let the server's readOnlyHint make a tool a read (default: every tool is a write)"),
    roots: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("The folders the server's relative paths are resolved against, for permission rules"),
    tools: z
      .record(
        z.string().min(1),
        z
          .object({ side_effect: z.enum(['none', 'read', 'write']), idempotent: z.boolean() })
          .partial()
          .strict(),
      )
      .optional(),
  })
  .strict()
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either "command" (a stdio server) or "url" (Streamable HTTP)' });
      return;
    }
    const wrong = server.url
      ? (['args', 'env', 'cwd'] as const).filter((key) => server[key] !== undefined)
      : (['headers'] as const).filter((key) => server[key] !== undefined);
    for (const key of wrong) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: server.url
          ? `"${key}" is for stdio servers (with "command")`
          : '"headers" is for HTTP servers (with "url")',
      });
    }
  });

/** A whole number between `min` and `max`, with an error that says so (and what it is for). */
const wholeNumber = (what: string, min: number, max: number) =>
  z
    .number({ error: `${what}: a whole number from ${min} to ${max}` })
    .int({ error: `${what}: a whole number from ${min} to ${max}` })
    .min(min, { error: `${what}: at least ${min}` })
    .max(max, { error: `${what}: at most ${max}` });

/** A breaker's thresholds; a field left out keeps the default. */
const breakerSettings = z
  .object({
    failure_threshold: wholeNumber('failed calls in a row that open the breaker', 1, 1000),
    cooldown_ms: wholeNumber('milliseconds the breaker stays open before a trial call', 100, 86_400_000),
  })
  .partial()
  .strict();

const BREAKER_EXPECTED = '{ "failure_threshold": <calls>, "cooldown_ms": <ms> }, or false for no breaker';

/**
 * One built-in tool's settings (`tools.<name>`), over its defaults: the timeout of each attempt,
 * its attempts in all (`retries`, as for MCP servers: 1 = no retry), and its circuit breaker's
 * thresholds, or `false` for none.
 */
const toolSettings = z
  .object({
    timeout_ms: wholeNumber('milliseconds per attempt', 100, 3_600_000).optional(),
    retries: wholeNumber('attempts in all, the first included (1 = no retry)', 1, 10).optional(),
    // Not a union: its error would hide which field of the thresholds is wrong.
    circuit_breaker: z
      .unknown()
      .transform((value, ctx): false | z.output<typeof breakerSettings> => {
        if (value === false) return false;
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          ctx.addIssue({ code: 'custom', message: BREAKER_EXPECTED });
          return z.NEVER;
        }
        const parsed = breakerSettings.safeParse(value);
        if (parsed.success) return parsed.data;
        for (const issue of parsed.error.issues) {
          ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[] });
        }
        return z.NEVER;
      })
      .optional(),
  })
  .strict();

/** `tools`: one entry per built-in tool named; another name is refused, saying where MCP tools' settings go. */
const toolsSection = z.object(
  Object.fromEntries(BUILTIN_TOOL_NAMES.map((name) => [name, toolSettings.optional()])) as Record<
    (typeof BUILTIN_TOOL_NAMES)[number],
    z.ZodOptional<typeof toolSettings>
  >,
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.map((key) => `"${key}"`).join(', ')}: not a built-in tool (${BUILTIN_TOOL_NAMES.join(', ')}); an MCP server's tools take mcp.servers.<server>.timeout_ms and retries`
        : undefined,
  },
);

const DEFAULT_SHELL_ALLOW = ['echo', 'ls', 'cat', 'pwd', 'date', 'wc', 'head', 'tail', 'grep'];

/** The shape of `toolscope.config.json`. Every field is optional. */
export const configFileSchema = z
  .object({
    workspace: z.string().min(1).optional().describe('Sandbox folder for file and shell tools'),
    policies: z
      .record(z.string(), policy)
      .default({})
      .describe('Per-tool policy: allow, ask or deny; below every rule in permissions'),
    permissions: z
      .object({
        allow: z.array(permissionRule).default([]),
        ask: z.array(permissionRule).default([]),
        deny: z.array(permissionRule).default([]),
      })
      .strict()
      .default({ allow: [], ask: [], deny: [] })
      .describe('Rules in Claude Code style, tool or tool(specifier): deny, then ask, then allow'),
    approvals: z
      .object({
        timeoutMs: z
          .number()
          .int()
          .min(1000)
          .max(7 * 24 * 3_600_000),
        waitMs: z
          .number()
          .int()
          .min(0)
          .max(7 * 24 * 3_600_000),
        user: z.string().trim().min(1).max(64),
        notify: z
          .array(
            z
              .object({
                url: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }),
                secret: z.string().min(1).max(1024).optional(),
                format: z.enum(['json', 'slack']).default('json'),
              })
              .strict(),
          )
          .max(20),
        link_base: z
          .url({ protocol: /^https?$/, error: 'an http:// or https:// URL' })
          .describe('Where people open Toolscope: the links of notifications start with it'),
      })
      .partial()
      .strict()
      .default({})
      .describe('How long a call waits for a decision and how long the API holds a caller (`user` is no longer used)'),
    shell: z
      .object({
        allow: z
          .array(
            z
              .string()
              .min(1)
              .regex(/^[^/\\\s]+$/, 'a bare program name, without a path'),
          )
          .default(DEFAULT_SHELL_ALLOW),
        sandbox: z
          .enum(['auto', 'bubblewrap', 'none'])
          .default('auto')
          .describe('What run_shell runs programs in: bubblewrap where it works ("auto"), only bubblewrap, or none'),
        allow_unsandboxed: z
          .boolean()
          .default(false)
          .describe('Run programs without a sandbox when there is none (they can read what the server can)'),
        network: z.boolean().default(false).describe("Programs in the sandbox keep the host's network"),
      })
      .strict()
      .default({ allow: DEFAULT_SHELL_ALLOW, sandbox: 'auto', allow_unsandboxed: false, network: false }),
    http: z
      .object({ allow: z.array(z.string().min(1)) })
      .strict()
      .default({ allow: ['127.0.0.1', 'localhost', '::1'] }),
    redact: z
      .object({ keys: z.array(z.string().min(1)) })
      .strict()
      .default({ keys: [] }),
    limits: z
      .object({
        maxBodyBytes: z.number().int().positive(),
        maxModelOutputChars: z.number().int().min(256),
        maxTraceBytes: z.number().int().positive(),
        maxFileBytes: z.number().int().positive(),
        maxResponseBytes: z.number().int().positive(),
        maxBatchSize: z.number().int().positive(),
        bodyTimeoutMs: z.number().int().min(100).max(300_000),
        maxQueuedWrites: z.number().int().min(1).max(1_000_000),
      })
      .partial()
      .strict()
      .default({}),
    retention: z
      .object({
        maxAgeDays: z
          .number({ error: 'a number of days, or null to keep calls of any age' })
          .positive({ error: 'must be more than 0 days (null keeps calls of any age)' })
          .max(36_500, { error: 'must be at most 36500 days (null keeps calls of any age)' })
          .nullable(),
        maxCalls: z
          .number({ error: 'a whole number of calls, or null for no limit' })
          .int({ error: 'must be a whole number of calls' })
          .positive({ error: 'must be at least 1 call (null for no limit)' })
          .nullable(),
      })
      .partial()
      .strict()
      .default({})
      .describe('How long calls are kept: the newest maxCalls calls not older than maxAgeDays'),
    tools: toolsSection
      .strict()
      .default({})
      .describe("Built-in tools' timeout per attempt, attempts in all and circuit breaker, per tool"),
    compare: compareSection
      .default({ ignore_paths: [] })
      .describe('Output paths the comparisons ignore, beside the defaults (headers.date, timestamps)'),
    mcp: z
      .object({
        servers: z
          .record(z.string(), mcpServer)
          .superRefine((servers, ctx) => {
            for (const name of Object.keys(servers)) {
              const message = !MCP_SERVER_NAME.test(name)
                ? 'a server name is 1-32 letters, digits, "_" or "-"'
                : name.includes('__')
                  ? 'a server name must not contain "__" (it separates server and tool)'
                  : null;
              if (message) ctx.addIssue({ code: 'custom', path: [name], message });
            }
          })
          .default({}),
      })
      .strict()
      .default({ servers: {} })
      .describe('Upstream MCP servers whose tools are registered as <server>__<tool>'),
  })
  .strict();

export type ConfigFile = z.infer<typeof configFileSchema>;

export interface Limits {
  maxBodyBytes: number;
  maxModelOutputChars: number;
  maxTraceBytes: number;
  maxFileBytes: number;
  maxResponseBytes: number;
  maxBatchSize: number;
  /** How long a client may take to send a request body on the agent path before it is dropped (408). */
  bodyTimeoutMs: number;
  /**
   * Trace writes waiting in memory while the database cannot be written, at which new calls are
   * refused (503 STORE_UNAVAILABLE) until it can: what an outage may hold, and lose to a crash.
   */
  maxQueuedWrites: number;
}

/** Which calls the background retention deletes (see `lib/db/retention.ts`); null means no bound. */
export interface RetentionConfig {
  /** Calls older than this many days are deleted. */
  maxAgeDays: number | null;
  /** Only the newest this many calls are kept. */
  maxCalls: number | null;
}

/** Keep the last 30 days, however many calls that is. */
export const DEFAULT_RETENTION: RetentionConfig = { maxAgeDays: 30, maxCalls: null };

/** What the config says of one tool of an MCP server, over what the server's annotations say. */
export interface McpToolSettings {
  sideEffect?: 'none' | 'read' | 'write';
  idempotent?: boolean;
}

interface McpServerBase {
  name: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts in all for a tool marked idempotent (the others get one). */
  retries: number;
  /** Whether `readOnlyHint` may make a tool a read; otherwise every tool the config does not label is a write. */
  trustAnnotations: boolean;
  /** The folders its relative paths are resolved against (absolute); null when the config does not say. */
  roots: string[] | null;
  tools: Record<string, McpToolSettings>;
}

/**
 * An upstream MCP server as configured. HTTP header values have their `${NAME}` references
 * filled in from the environment here: they may be secrets, so a server's settings are never
 * written to traces, logs or API answers.
 */
export type McpServerConfig = McpServerBase &
  (
    | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string | null }
    | { transport: 'http'; url: string; headers: Record<string, string> }
  );

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
export const DEFAULT_MCP_RETRIES = 3;

/** A permission rule from the config file, maybe limited to one session. */
export interface RuleSetting {
  rule: string;
  session: string | null;
}

/** Manual approval: how long a call may wait, and how long an API caller is kept waiting. */
export interface ApprovalsConfig {
  /** A call not decided within this is denied with APPROVAL_TIMEOUT. Default 10 minutes. */
  timeoutMs: number;
  /** How long `POST /api/v1/tool-calls` waits for decisions before answering. Default: `timeoutMs`. */
  waitMs: number;
  /** Webhooks told of every approval requested and decided (`approvals.notify`). */
  notify: NotifyTarget[];
  /** Where the notifications' links point: `approvals.link_base`, else http://HOST:PORT. */
  linkBase: string | null;
}

/** One webhook of `approvals.notify`: a POST of JSON (or a Slack message), signed when `secret` is set. */
export interface NotifyTarget {
  url: string;
  secret?: string;
  format: 'json' | 'slack';
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

export interface Config {
  /** The port the app serves on (`PORT`, default 3000): the HTTP tool refuses it on loopback. */
  port: number;
  /** The address the app listens on (`HOST`, default 127.0.0.1); the guard accepts it as a Host. */
  host: string;
  /** Host names the guard accepts besides loopback and `host` (`TOOLSCOPE_ALLOWED_HOSTS`, comma-separated). */
  allowedHosts: string[];
  /** `TOOLSCOPE_TOKEN`: when set, the API wants it as a bearer token and the pages a login; null when unset. */
  token: string | null;
  dataDir: string;
  dbPath: string;
  workspace: string;
  /** The config file read, or null when none exists. */
  configPath: string | null;
  policies: Record<string, 'allow' | 'ask' | 'deny'>;
  /** The rule lists of the config file (read-only at runtime; the data folder holds the edited ones). */
  permissions: { allow: RuleSetting[]; ask: RuleSetting[]; deny: RuleSetting[] };
  approvals: ApprovalsConfig;
  shellAllow: string[];
  /** `shell.sandbox`, `shell.allow_unsandboxed`, `shell.network`: what run_shell runs programs in. */
  shellSandbox: { setting: 'auto' | 'bubblewrap' | 'none'; allowUnsandboxed: boolean; network: boolean };
  httpAllow: string[];
  redactKeys: string[];
  limits: Limits;
  retention: RetentionConfig;
  /** The built-in tools' settings (`tools.<name>`) over their defaults; a tool not named keeps its own. */
  tools: Record<string, ToolSettings>;
  /** `compare.ignore_paths`: output paths (globs) whose differences the comparisons ignore, beside the defaults. */
  compare: { ignorePaths: string[] };
  /** Upstream MCP servers, in the config file's order. */
  mcpServers: McpServerConfig[];
  /** What the start-up log says of the file beside its errors: settings that no longer do anything. */
  notes: string[];
}

export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 1024 * 1024,
  maxModelOutputChars: 16_000,
  maxTraceBytes: 1024 * 1024,
  maxFileBytes: 1024 * 1024,
  maxResponseBytes: 5 * 1024 * 1024,
  maxBatchSize: 128,
  bodyTimeoutMs: 10_000,
  maxQueuedWrites: 5000,
};

/** A config problem, with one line per bad field, written for the person fixing the file. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads the configuration.
 * 1. Data folder: `TOOLSCOPE_DATA_DIR`, else `.toolscope/` in the working directory.
 * 2. Config file: `TOOLSCOPE_CONFIG` (must exist), else `toolscope.config.json` in the working
 *    directory or the data folder, if present.
 * 3. The file is validated; every bad field is reported at once.
 * 4. The server's settings from the environment (`PORT`, `HOST`, `TOOLSCOPE_ALLOWED_HOSTS`,
 *    `TOOLSCOPE_TOKEN`) join it: the rest of the app reads the environment through this config,
 *    nowhere else. Whether the server may start with them is `accessProblem`'s to say.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const dataDir = path.resolve(cwd, env.TOOLSCOPE_DATA_DIR || '.toolscope');
  let configPath: string | null = null;
  if (env.TOOLSCOPE_CONFIG) {
    configPath = path.resolve(cwd, env.TOOLSCOPE_CONFIG);
    if (!fs.existsSync(configPath))
      throw new ConfigError(`TOOLSCOPE_CONFIG names ${configPath}, which does not exist.`);
  } else {
    configPath =
      [path.join(cwd, 'toolscope.config.json'), path.join(dataDir, 'toolscope.config.json')].find((p) =>
        fs.existsSync(p),
      ) ?? null;
  }
  let raw: unknown = {};
  if (configPath) {
    try {
      raw = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    } catch (error) {
      throw new ConfigError(`${configPath} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration in ${configPath}:\n${lines.join('\n')}`);
  }
  const file = parsed.data;
  const base = configPath ? path.dirname(configPath) : cwd;
  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new ConfigError(`PORT must be 1-65535, not "${env.PORT}".`);
  return {
    port,
    host: (env.HOST || '127.0.0.1').trim(),
    allowedHosts: (env.TOOLSCOPE_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
    token: env.TOOLSCOPE_TOKEN?.trim() || null,
    dataDir,
    dbPath: path.join(dataDir, 'toolscope.db'),
    workspace: file.workspace ? path.resolve(base, file.workspace) : path.join(dataDir, 'workspace'),
    configPath,
    policies: file.policies,
    permissions: file.permissions,
    approvals: approvalsOf(file.approvals),
    shellAllow: file.shell.allow,
    shellSandbox: {
      setting: file.shell.sandbox,
      allowUnsandboxed: file.shell.allow_unsandboxed,
      network: file.shell.network,
    },
    httpAllow: file.http.allow,
    redactKeys: file.redact.keys,
    limits: { ...DEFAULT_LIMITS, ...file.limits },
    retention: { ...DEFAULT_RETENTION, ...file.retention },
    tools: toolSettingsOf(file.tools),
    compare: { ignorePaths: file.compare.ignore_paths },
    mcpServers: mcpServersOf(file.mcp.servers, base, env, configPath),
    notes:
      file.approvals.user === undefined
        ? []
        : [
            `${configPath}: approvals.user is no longer used: a decision records the key or login that made it (README "Team use").`,
          ],
  };
}

/** `tools.<name>` in the file's snake_case, as the tools take it. */
function toolSettingsOf(tools: ConfigFile['tools']): Record<string, ToolSettings> {
  return Object.fromEntries(
    Object.entries(tools).flatMap(([name, settings]): [string, ToolSettings][] => {
      if (!settings) return [];
      const breaker = settings.circuit_breaker;
      return [
        [
          name,
          {
            ...(settings.timeout_ms !== undefined ? { timeoutMs: settings.timeout_ms } : {}),
            ...(settings.retries !== undefined ? { retries: settings.retries } : {}),
            ...(breaker === false
              ? { circuitBreaker: false }
              : breaker
                ? {
                    circuitBreaker: {
                      ...(breaker.failure_threshold !== undefined
                        ? { failureThreshold: breaker.failure_threshold }
                        : {}),
                      ...(breaker.cooldown_ms !== undefined ? { cooldownMs: breaker.cooldown_ms } : {}),
                    },
                  }
                : {}),
          },
        ],
      ];
    }),
  );
}

/** `${NAME}` in a header value: filled in from the environment. */
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function mcpServersOf(
  servers: ConfigFile['mcp']['servers'],
  base: string,
  env: Record<string, string | undefined>,
  configPath: string | null,
): McpServerConfig[] {
  const missing: string[] = [];
  const result = Object.entries(servers).map(([name, server]): McpServerConfig => {
    const common: McpServerBase = {
      name,
      timeoutMs: server.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS,
      retries: server.retries ?? DEFAULT_MCP_RETRIES,
      trustAnnotations: server.trustAnnotations === true,
      roots: server.roots ? server.roots.map((root) => path.resolve(base, root)) : null,
      tools: Object.fromEntries(
        Object.entries(server.tools ?? {}).map(([tool, settings]) => [
          tool,
          {
            ...(settings.side_effect ? { sideEffect: settings.side_effect } : {}),
            ...(settings.idempotent !== undefined ? { idempotent: settings.idempotent } : {}),
          },
        ]),
      ),
    };
    if (server.url) {
      const headers: Record<string, string> = {};
      for (const [header, value] of Object.entries(server.headers ?? {})) {
        headers[header] = value.replace(ENV_REFERENCE, (_, variable: string) => {
          const found = env[variable];
          if (found === undefined)
            missing.push(`  - mcp.servers.${name}.headers.${header}: \${${variable}} is not set in the environment`);
          return found ?? '';
        });
      }
      return { ...common, transport: 'http', url: server.url, headers };
    }
    return {
      ...common,
      transport: 'stdio',
      command: server.command as string,
      args: server.args ?? [],
      env: server.env ?? {},
      cwd: server.cwd ? path.resolve(base, server.cwd) : null,
    };
  });
  if (missing.length > 0) throw new ConfigError(`Invalid configuration in ${configPath}:\n${missing.join('\n')}`);
  return result;
}

/**
 * Why the server must not start with this workspace, or null when it may: the workspace must
 * not hold Toolscope's own files — the data folder (database, vault key, policy.json) and the
 * config file — which run_shell and the file tools could then read and rewrite (the vault key,
 * an MCP server added to the config). Real paths are compared, symlinks resolved, each of those
 * files on its own too (a policy.json linked into the workspace counts); a part that does not
 * exist yet is taken as written.
 */
export function workspaceProblem(
  config: Pick<Config, 'workspace' | 'dataDir' | 'dbPath' | 'configPath'>,
): string | null {
  const workspace = realPathOf(config.workspace);
  /** `file`'s real path when it is in the workspace, else null. */
  const inWorkspace = (file: string) => {
    const real = realPathOf(file);
    return workspace === path.sep || real === workspace || real.startsWith(`${workspace}${path.sep}`) ? real : null;
  };
  const own: [string, string | null][] = [
    ['the data folder', config.dataDir],
    ['the config file', config.configPath],
    // Named on their own when the data folder is elsewhere but they lead into the workspace (symlinks).
    ...(inWorkspace(config.dataDir) === null
      ? ([
          ['the database', config.dbPath],
          ["the secrets' vault key", path.join(config.dataDir, 'vault.key')],
          ['the permission rules', path.join(config.dataDir, 'policy.json')],
        ] as [string, string][])
      : []),
  ];
  const inside = own.flatMap(([what, file]) => {
    const real = file === null ? null : inWorkspace(file);
    return real === null ? [] : [`${what} ${file}${real === file ? '' : ` (${real})`}`];
  });
  if (inside.length === 0) return null;
  const where = config.configPath ? `Invalid configuration in ${config.configPath}` : 'Invalid configuration';
  return [
    `${where}:`,
    `  - workspace: ${config.workspace}${workspace === config.workspace ? '' : ` (${workspace})`} holds Toolscope's own files, which run_shell and the file tools could read and rewrite: ${inside.join('; ')}.`,
    '    Point "workspace" at a folder that holds none of them (e.g. "./workspace" beside the config file), or keep',
    '    the data folder (TOOLSCOPE_DATA_DIR) and the config file (TOOLSCOPE_CONFIG) outside the workspace.',
  ].join('\n');
}

/** `file` with its symlinks resolved; the part below its nearest existing folder is appended as written. */
function realPathOf(file: string): string {
  const absolute = path.resolve(file);
  let existing = absolute;
  const rest: string[] = [];
  while (true) {
    try {
      return path.join(fs.realpathSync(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** Whether `host` is a loopback address: only this machine can reach a server bound to it. */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name === '::1') return true;
  const v4 = net.isIPv4(name) ? name : name.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/)?.[1];
  return v4 !== undefined && net.isIPv4(v4) && v4.startsWith('127.');
}

/**
 * Why the server must not start with these settings, or null when it may: bound to an address
 * other machines can reach, it needs a key (TOOLSCOPE_TOKEN, or named keys in the data folder:
 * `hasKeys`), and a token must not be guessable.
 */
export function accessProblem(config: Pick<Config, 'host' | 'port' | 'token'>, hasKeys = false): string | null {
  if (config.token !== null && config.token.length < MIN_TOKEN_LENGTH) {
    return `TOOLSCOPE_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters long; make one with: openssl rand -hex 32`;
  }
  if (config.token === null && !hasKeys && !isLoopbackHost(config.host)) {
    return [
      `HOST is ${config.host}, which other machines can reach, and no key is set up (TOOLSCOPE_TOKEN is not set and the data folder holds no key).`,
      'Toolscope runs tools and shows their arguments: bound to anything but loopback it requires keys.',
      'Make an admin key with: npm run keys -- create --name <you> --role admin',
      `or set a bootstrap admin token, e.g. TOOLSCOPE_TOKEN=$(openssl rand -hex 32) HOST=${config.host} PORT=${config.port} npm start,`,
      'then send keys from agents as "Authorization: Bearer <key>" and log in with them at /login.',
      'Or leave HOST unset to listen on 127.0.0.1 only.',
    ].join('\n');
  }
  return null;
}

function approvalsOf(file: ConfigFile['approvals']): ApprovalsConfig {
  const timeoutMs = file.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  return {
    timeoutMs,
    waitMs: file.waitMs ?? timeoutMs,
    notify: file.notify ?? [],
    linkBase: file.link_base?.replace(/\/+$/, '') ?? null,
  };
}
