import { createRedactor } from './redact';

/** Shorter values of secret-named variables are flags and ports, not secrets worth scrubbing from every text. */
const MIN_ENV_SECRET_LENGTH = 8;
/** `scheme://user:password@` in any variable (`DATABASE_URL`): the password is a secret whatever the name. */
const URL_PASSWORD = /:\/\/[^\s/?#@:]{0,256}:([^\s/?#@]{1,2048})@/g;

/**
 * The secrets of an environment (the server's own), scrubbed from everything Toolscope stores or
 * shows, whatever a tool or an upstream server echoes: the values of variables whose names look
 * secret the way argument keys do (`MY_SERVICE_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`,
 * `OPENAI_API_KEY`, `*_AUTH`, `*_CREDENTIALS`), at least 8 characters long, and the passwords of
 * URLs in any variable.
 * @param extraKeys the config's extra secret keys, which name variables too.
 */
export function secretsFromEnvironment(
  env: Record<string, string | undefined>,
  extraKeys: readonly string[] = [],
): string[] {
  const { isSecretKey } = createRedactor(extraKeys);
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_ENV_SECRET_LENGTH && (isSecretKey(name) || /(?:^|_)(?:KEY|PAT|PASS)$/i.test(name))) {
      secrets.add(trimmed);
    }
    if (value.includes('://') && value.includes('@')) {
      for (const match of value.matchAll(URL_PASSWORD)) {
        if ((match[1] ?? '').length >= MIN_ENV_SECRET_LENGTH) secrets.add(match[1] as string);
      }
    }
  }
  return [...secrets];
}
