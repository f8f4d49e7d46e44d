import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';
import { DEFAULT_CIRCUIT_BREAKER } from './executor/define-tool';
import { BUILTIN_TOOL_NAMES, createBuiltinTools } from './tools';

/** The config's `tools` section: each built-in tool's timeout, attempts and breaker, checked and applied. */
const dirs: string[] = [];
function withConfig(file: unknown): string {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-config-tools-'));
  dirs.push(cwd);
  fs.writeFileSync(path.join(cwd, 'toolscope.config.json'), JSON.stringify(file));
  return cwd;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The ConfigError's message for a config file holding `file`. */
function problemWith(file: unknown): string {
  try {
    loadConfig({}, withConfig(file));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(file)}`);
}

const builtins = (settings: ReturnType<typeof loadConfig>['tools']) =>
  createBuiltinTools({ workspace: os.tmpdir(), shellAllow: [], httpAllow: [], configFile: null, settings });
const byName = (tools: ReturnType<typeof builtins>, name: string) => tools.find((tool) => tool.name === name)!;

describe('tools in the config', () => {
  it('names every built-in tool, and only those', () => {
    const names = builtins({}).map((tool) => tool.name);
    expect([...names].sort()).toEqual([...BUILTIN_TOOL_NAMES]);
  });

  it('is empty by default: every tool keeps its own timeout, attempts and breaker', () => {
    const config = loadConfig({}, withConfig({}));
    expect(config.tools).toEqual({});
    const http = byName(builtins(config.tools), 'http_request');
    expect(http.timeoutMs).toBe(15_000);
    expect(http.retry.maxAttempts).toBe(3);
    expect(http.circuitBreaker).toEqual(DEFAULT_CIRCUIT_BREAKER);
    expect(byName(builtins(config.tools), 'calculator').circuitBreaker).toBe(false);
  });

  it('reads timeout_ms, retries (attempts in all) and circuit_breaker per tool, and the tools take them', () => {
    const config = loadConfig(
      {},
      withConfig({
        tools: {
          http_request: { timeout_ms: 4000, retries: 1, circuit_breaker: { failure_threshold: 2, cooldown_ms: 5000 } },
          run_shell: { timeout_ms: 120_000 },
          read_file: { circuit_breaker: false },
          calculator: { circuit_breaker: { failure_threshold: 10 } },
        },
      }),
    );
    expect(config.tools).toEqual({
      http_request: { timeoutMs: 4000, retries: 1, circuitBreaker: { failureThreshold: 2, cooldownMs: 5000 } },
      run_shell: { timeoutMs: 120_000 },
      read_file: { circuitBreaker: false },
      calculator: { circuitBreaker: { failureThreshold: 10 } },
    });
    const tools = builtins(config.tools);
    const http = byName(tools, 'http_request');
    expect(http.timeoutMs).toBe(4000);
    expect(http.retry).toMatchObject({ maxAttempts: 1, baseDelayMs: 200 });
    expect(http.circuitBreaker).toEqual({ failureThreshold: 2, cooldownMs: 5000 });
    // The rest of the definition is the tool's own.
    expect(http.circuitKey?.({ url: 'http://127.0.0.1:9/' } as never)).toBe('127.0.0.1:9');
    expect(byName(tools, 'run_shell').timeoutMs).toBe(120_000);
    expect(byName(tools, 'read_file').circuitBreaker).toBe(false);
    // A breaker the tool had none of: the thresholds given, the defaults for the rest.
    expect(byName(tools, 'calculator').circuitBreaker).toEqual({ failureThreshold: 10, cooldownMs: 30_000 });
    expect(byName(tools, 'write_file').timeoutMs).toBe(10_000);
  });

  it('reports each bad value with its path and what is expected', () => {
    const message = problemWith({
      tools: {
        http_request: { timeout_ms: 0, retries: 1.5, circuit_breaker: { failure_threshold: 0, cooldown_ms: 'long' } },
        run_shell: { retries: 0, timeout: 5 },
        read_file: { circuit_breaker: true },
        search: { timeout_ms: 1000 },
      },
    });
    expect(message).toContain('Invalid configuration in');
    expect(message).toContain('tools.http_request.timeout_ms: milliseconds per attempt: at least 100');
    expect(message).toContain(
      'tools.http_request.retries: attempts in all, the first included (1 = no retry): a whole number',
    );
    expect(message).toContain(
      'tools.http_request.circuit_breaker.failure_threshold: failed calls in a row that open the breaker: at least 1',
    );
    expect(message).toContain('tools.http_request.circuit_breaker.cooldown_ms: milliseconds the breaker stays open');
    expect(message).toContain(
      'tools.run_shell.retries: attempts in all, the first included (1 = no retry): at least 1',
    );
    expect(message).toMatch(/tools\.run_shell: .*timeout/);
    expect(message).toContain(
      'tools.read_file.circuit_breaker: { "failure_threshold": <calls>, "cooldown_ms": <ms> }, or false',
    );
    expect(message).toContain(
      'tools: "search": not a built-in tool (calculator, http_request, read_file, run_shell, write_file)',
    );
    expect(message).toContain('mcp.servers.<server>.timeout_ms');
  });

  it('refuses values past their bounds and fields a breaker does not have', () => {
    expect(problemWith({ tools: { http_request: { retries: 11 } } })).toContain(
      'tools.http_request.retries: attempts in all, the first included (1 = no retry): at most 10',
    );
    expect(problemWith({ tools: { http_request: { timeout_ms: 3_600_001 } } })).toContain('at most 3600000');
    expect(problemWith({ tools: { http_request: { circuit_breaker: { threshold: 3 } } } })).toContain(
      'tools.http_request.circuit_breaker',
    );
    expect(problemWith({ tools: [] })).toContain('tools:');
  });
});
