import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RuleList } from './parse-rule';

/** A rule kept in the data folder's policy.json: added from the Policy page, the API, or an approval. */
export interface DataRule {
  id: string;
  list: RuleList;
  rule: string;
  session: string | null;
}

const fileSchema = z
  .object({
    version: z.literal(1),
    rules: z.array(
      z
        .object({
          id: z.string().min(1).max(64),
          list: z.enum(['allow', 'ask', 'deny']),
          rule: z.string(),
          session: z.string().min(1).nullable(),
        })
        .strict(),
    ),
  })
  .strict();

/**
 * Reads policy.json; a missing file is no rules. A file that is not ours to read (bad JSON, wrong
 * shape) throws with its path and the bad fields: starting without the rules a person saved
 * could let calls run that they meant to stop.
 */
export function readPolicyFile(file: string): DataRule[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${file} is not a Toolscope policy file:\n${lines.join('\n')}`);
  }
  return parsed.data.rules;
}

/**
 * Writes policy.json atomically: the rules go to a temporary file beside it, which is flushed to
 * disk and renamed over the old one, so a crash leaves the old rules or the new, never half.
 */
export function writePolicyFile(file: string, rules: readonly DataRule[]): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const text = `${JSON.stringify({ version: 1, rules }, null, 2)}\n`;
  const fd = fs.openSync(temp, 'wx', 0o644);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
