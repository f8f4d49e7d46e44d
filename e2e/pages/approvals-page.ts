import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';
import { postToolCall, unique } from './api';

/** The approval queue: pending calls, their decisions and forms, the decision log. */
export class ApprovalsPage {
  readonly view: Locator;
  readonly cards: Locator;
  readonly log: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('approvals-view');
    this.cards = page.getByTestId('approval');
    this.log = page.getByTestId('decision-log');
  }

  async goto() {
    await this.page.goto('/approvals');
    await expect(this.view).toBeVisible();
  }

  card(traceId: string): Locator {
    return this.page.locator(`[data-testid="approval"][data-trace-id="${traceId}"]`);
  }

  /** A field of the open edit form, by its dotted path. */
  editField(traceId: string, path: string): Locator {
    return this.card(traceId).getByTestId('edit-form').locator(`[data-field="${path}"]`);
  }

  /** The navigation's pending count (absent at 0). */
  badge(): Locator {
    return this.page.getByTestId('approvals-badge');
  }
}

/** A `write_file` call as an agent sends it with `"wait": false`: answered at once, still pending. */
export async function pendingWrite(request: APIRequestContext, file: string, content: string, sessionId?: string) {
  const call = await postToolCall(request, {
    id: unique('call_write'),
    name: 'write_file',
    arguments: { path: file, content },
    wait: false,
    ...(sessionId ? { sessionId } : {}),
  });
  expect(call.status).toBe('awaiting_approval');
  return call.traceId;
}
