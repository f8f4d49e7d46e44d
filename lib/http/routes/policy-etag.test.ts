import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createTempDataDir } from '../../db/test-database';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { appOf, callApp } from '../testing/call-app';

/** Conditional policy writes: GET's `ETag`, PUT's `If-Match`, 412 on a stale one. */
const temp = createTempDataDir('toolscope-policy-etag-');
let ts: Toolscope;

beforeAll(() => {
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, temp.dir));
});

afterAll(async () => {
  await appOf(ts).parts.mcp.close();
  ts.close();
  temp.remove();
});

const get = () => callApp(appOf(ts), 'GET', '/api/v1/policy');
const put = (rules: { list: string; rule: string }[], ifMatch?: string) =>
  callApp(appOf(ts), 'PUT', '/api/v1/policy', { body: { rules }, headers: ifMatch ? { 'if-match': ifMatch } : {} });

describe('GET and PUT /api/v1/policy with ETag and If-Match', () => {
  it('refuses a PUT whose If-Match names rules no longer in force, with 412 and nothing saved', async () => {
    const first = await get();
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await get()).headers.get('etag')).toBe(tag);

    // Someone else adds a rule meanwhile (another tab, a script).
    const other = await put([{ list: 'allow', rule: 'run_shell(git status)' }], tag as string);
    expect(other.status).toBe(200);
    const newTag = other.headers.get('etag');
    expect(newTag).not.toBe(tag);

    // The stale tab saves its own draft, built on the rules it read first: refused.
    const stale = await put([{ list: 'deny', rule: 'write_file(secrets/**)' }], tag as string);
    expect(stale.status).toBe(412);
    const body = (await stale.json()) as { error: { code: string; message: string; details: { etag: string } } };
    expect(body.error.code).toBe('PRECONDITION_FAILED');
    expect(body.error.message).toMatch(/changed since you read them/);
    expect(body.error.details.etag).toBe(newTag);
    expect(stale.headers.get('etag')).toBe(newTag);
    expect(ts.policy.rules().map((rule) => rule.rule)).toEqual(['run_shell(git status)']);

    // With the current tag (or `*`, or none) the write goes ahead.
    const fresh = await put(
      [
        { list: 'allow', rule: 'run_shell(git status)' },
        { list: 'deny', rule: 'write_file(secrets/**)' },
      ],
      `"nope", ${newTag}`,
    );
    expect(fresh.status).toBe(200);
    expect(
      ts.policy
        .rules()
        .map((rule) => rule.rule)
        .sort(),
    ).toEqual(['run_shell(git status)', 'write_file(secrets/**)']);
    expect((await put([], '*')).status).toBe(200);
    expect((await put([])).status).toBe(200);
  });

  it('never matches a weak tag: a PUT with W/ before the current tag is 412', async () => {
    const tag = (await get()).headers.get('etag') as string;
    expect((await put([], `W/${tag}`)).status).toBe(412);
  });
});
