import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';
import { postToolCall, unique } from './api';
import { TracePage } from './trace-page';

/** The compare view of two calls (`/traces/<a>/compare/<b>`). */
export class ComparePage {
  readonly view: Locator;
  readonly argumentsDiff: Locator;
  readonly outputDiff: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('compare-view');
    this.argumentsDiff = page.getByTestId('arguments-diff');
    this.outputDiff = page.getByTestId('output-diff');
  }

  async goto(a: string, b: string) {
    await this.page.goto(`/traces/${a}/compare/${b}`);
    await expect(this.view).toBeVisible();
  }

  /** A changed / added / removed path of the structural diff of `section` (`arguments` or `output`). */
  pathChange(section: 'arguments' | 'output', path: string): Locator {
    return this.page.locator(`[data-testid="${section}-diff"] [data-testid="path-change"][data-path="${path}"]`);
  }

  verdict(what: 'outcome' | 'output' | 'arguments'): Locator {
    return this.page.getByTestId(`verdict-${what}`);
  }

  summaryRow(field: string): Locator {
    return this.page.locator(`[data-testid="compare-row"][data-field="${field}"]`);
  }
}

/** The comparison of a session and its replay (`/sessions/<a>/compare/<b>`). */
export class SessionComparePage {
  readonly view: Locator;
  readonly pairs: Locator;
  readonly counts: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('session-compare');
    this.pairs = page.getByTestId('session-pair');
    this.counts = page.getByTestId('session-compare-counts');
  }

  pair(tool: string): Locator {
    return this.page.locator(`[data-testid="session-pair"][data-tool="${tool}"]`);
  }
}

/** Opens a trace and waits until its replay keys listen (the page is hydrated). */
export async function openTrace(page: Page, id: string) {
  await new TracePage(page).goto(id);
  await expect(page.getByTestId('replay-actions')).toHaveAttribute('data-ready', 'true');
}

/** The sandbox folder of the app under test (see global-setup.ts). */
export function workspaceFile(name: string): string {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set (global setup)');
  fs.mkdirSync(path.join(dataDir, 'workspace'), { recursive: true });
  return path.join(dataDir, 'workspace', name);
}

/** A session whose calls give different results on replay: the clock, and a file changed in between. */
export async function recordChangingSession(request: APIRequestContext) {
  const session = unique('sess-replay');
  const file = `${session}.txt`;
  fs.writeFileSync(workspaceFile(file), 'first version\n');
  const calc = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '2+2' },
    sessionId: session,
  });
  const clock = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['date', '+%N'] },
    sessionId: session,
  });
  const read = await postToolCall(request, {
    id: unique('call'),
    name: 'read_file',
    arguments: { path: file },
    sessionId: session,
  });
  for (const call of [calc, clock, read]) expect(call.status).toBe('succeeded');
  fs.writeFileSync(workspaceFile(file), 'second version\n');
  return { session, calc, clock, read };
}
