import type { Config } from '../config';
import { createRedactor, type Redactor } from '../executor/redact';
import { secretsFromEnvironment } from '../executor/redact-env';

const redactors = new WeakMap<Config, Redactor>();

/**
 * The secrets the server knows before any call: its own environment's (variables named like
 * secrets, URL passwords; see `secretsFromEnvironment`), the header values of HTTP MCP servers
 * and the secret-named variables given to stdio ones.
 */
export function knownServerSecrets(config: Config, env: Record<string, string | undefined> = process.env): string[] {
  const secrets = new Set(secretsFromEnvironment(env, config.redactKeys));
  for (const server of config.mcpServers) {
    const values =
      server.transport === 'http'
        ? Object.values(server.headers).filter((value) => value.length >= 4)
        : secretsFromEnvironment(server.env, config.redactKeys);
    for (const value of values) secrets.add(value);
  }
  return [...secrets];
}

/**
 * The redactor for everything the server stores or shows under a config: its extra keys, and the
 * known secrets scrubbed from every text. One per config, shared by the executor and the routes.
 */
export function serverRedactor(config: Config): Redactor {
  let redactor = redactors.get(config);
  if (!redactor) {
    redactor = createRedactor(config.redactKeys, { secrets: knownServerSecrets(config) });
    redactors.set(config, redactor);
  }
  return redactor;
}
