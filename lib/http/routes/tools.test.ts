import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

/** The registered tools through the HTTP layer's app, in Toolscope's own form and the model APIs'. */
let dataDir: string;
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-tools-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  app = createHttpApp(ts);
});

afterAll(() => {
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const listTools = (query = '') => callApp(app, 'GET', `/api/v1/tools${query}`);

describe('GET /api/v1/tools', () => {
  it('lists the built-in tools with policy and JSON Schema, in three formats', async () => {
    const own = await (await listTools()).json();
    const names = own.tools.map((t: { name: string }) => t.name).sort();
    expect(names).toEqual(['calculator', 'http_request', 'read_file', 'run_shell', 'write_file']);
    const calc = own.tools.find((t: { name: string }) => t.name === 'calculator');
    expect(calc).toMatchObject({ side_effect: 'none', policy: 'allow' });
    expect(calc.input_schema.properties.expression.type).toBe('string');
    expect(own.tools.find((t: { name: string }) => t.name === 'run_shell').policy).toBe('ask');

    const openai = await (await listTools(`?format=openai`)).json();
    expect(openai.tools[0]).toMatchObject({ type: 'function', function: { name: expect.any(String) } });
    const anthropic = await (await listTools(`?format=anthropic`)).json();
    expect(anthropic.tools[0]).toHaveProperty('input_schema');
    expect((await listTools(`?format=xml`)).status).toBe(400);
  });
});
