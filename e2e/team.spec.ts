import { expect, test } from '@playwright/test';
import { ownAppServer } from './app-server';
import { unique } from './pages/api';
import { ApprovalsPage } from './pages/approvals-page';
import { AuditPage } from './pages/audit-page';
import { KeysPage } from './pages/keys-page';
import { LoginPage } from './pages/login-page';

/**
 * Team use in the browser, on a Toolscope of its own: keys made through the API (the first one
 * ends local mode), an agent's call waiting for approval, a reviewer who logs in with their key
 * and approves it — and the trace, the approvals page and /audit name both of them.
 */
test.describe('a reviewer and an agent', () => {
  const app = ownAppServer('toolscope-e2e-team-', { timeoutMs: 90_000 });

  test('a reviewer logs in, approves an agent call, and the trace, the approvals page and /audit name them', async ({
    page,
    request,
  }) => {
    // Local mode: anyone on the machine may make the first key; from then on, every request needs one.
    const local = await request.get(`${app.base}/api/v1/keys`);
    expect(local.status()).toBe(200);
    const makeKey = async (name: string, role: string, token?: string) => {
      const made = await request.post(`${app.base}/api/v1/keys`, {
        data: { name, role },
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      expect(made.status(), name).toBe(201);
      return ((await made.json()) as { token: string }).token;
    };
    const admin = await makeKey('ada', 'admin');
    expect((await request.get(`${app.base}/api/v1/keys`)).status()).toBe(401);
    const agent = await makeKey('bot', 'agent', admin);
    const reviewer = await makeKey('rita', 'reviewer', admin);

    const file = `${unique('team')}.md`;
    const sent = await request.post(`${app.base}/api/v1/tool-calls`, {
      headers: { authorization: `Bearer ${agent}` },
      data: {
        wait: false,
        tool_calls: [
          {
            id: unique('call'),
            type: 'function',
            function: {
              name: 'write_file',
              arguments: JSON.stringify({ path: file, content: 'approved by a person' }),
            },
          },
        ],
      },
    });
    expect(sent.status()).toBe(200);
    const traceId = ((await sent.json()) as { results: { trace_id: string; status: string }[] }).results[0]
      ?.trace_id as string;

    // The agent's key cannot decide, nor log in.
    const agentDecides = await request.post(`${app.base}/api/v1/approvals/${traceId}`, {
      headers: { authorization: `Bearer ${agent}` },
      data: { decision: 'approve' },
    });
    expect(agentDecides.status()).toBe(403);

    await page.goto(`${app.base}/approvals`);
    const login = new LoginPage(page);
    await login.expectShown();
    await login.logIn(reviewer);
    await expect(page).toHaveURL(`${app.base}/approvals`);
    await expect(page.getByTestId('viewer')).toContainText('rita');
    await expect(page.getByTestId('viewer')).toHaveAttribute('data-role', 'reviewer');

    const approvals = new ApprovalsPage(page);
    const card = approvals.card(traceId);
    await expect(card).toBeVisible();
    await expect(card.getByTestId('approval-principal')).toContainText('bot');
    await expect(card.getByTestId('approval-principal')).toContainText('agent');
    await card.getByTestId('approve').click();
    await expect(card).toHaveCount(0);
    await expect(approvals.log).toContainText('write_file');

    // The trace: who made it, who approved it, and the way to the audit trail.
    await page.goto(`${app.base}/traces/${traceId}`);
    await expect(page.getByTestId('trace-view')).toHaveAttribute('data-status', 'succeeded');
    await expect(page.getByTestId('trace-principal')).toContainText('bot');
    const panel = page.getByTestId('approval-panel');
    await expect(panel.getByTestId('approval-by')).toHaveText('rita');
    await expect(panel.getByTestId('approval-by-role')).toContainText('reviewer');
    await panel.getByTestId('approval-audit-link').click();

    // The audit trail, filtered to this call: rita approved it.
    await expect(page).toHaveURL(new RegExp(`/audit\\?target=${traceId}`));
    const audit = new AuditPage(page);
    const decided = audit.rowsOf('approval.decided');
    await expect(decided).toHaveCount(1);
    await expect(decided).toContainText('rita');
    await expect(decided).toContainText('reviewer');
    // Unfiltered: the login and the keys made are there too, and the chain holds.
    await page.goto(`${app.base}/audit`);
    await expect(audit.rowsOf('login').first()).toContainText('rita');
    await expect(audit.rowsOf('key.created')).toHaveCount(3);
    await audit.verify.click();
    await expect(audit.verifyResult).toHaveAttribute('data-ok', 'true');

    // The approvals page now lists nothing for rita to do, and a viewer's role would show no buttons.
    await page.goto(`${app.base}/approvals`);
    await expect(page.getByTestId('approvals-empty')).toBeVisible();
    await expect(approvals.cards).toHaveCount(0);
  });
});

test.describe('the Keys page', () => {
  const app = ownAppServer('toolscope-e2e-keys-', { timeoutMs: 90_000 });

  test('the first admin key ends local mode; an admin makes a scoped key, sees its token once and revokes it', async ({
    page,
    request,
  }) => {
    // Local mode: the page itself makes the first key, and offers to log in with it.
    await page.goto(`${app.base}/keys`);
    const keys = new KeysPage(page);
    await expect(keys.localModeNote).toBeVisible();
    const adminToken = await keys.createKeyAndReadToken({ name: 'ada', role: 'admin' });
    expect(adminToken).toMatch(/^tsk_/);
    await expect(keys.localModeEnded).toBeVisible();
    expect((await request.get(`${app.base}/api/v1/keys`)).status()).toBe(401);
    await keys.logInWithKey.click();
    await expect(page).toHaveURL(`${app.base}/keys`);
    await expect(page.getByTestId('viewer')).toContainText('ada');

    // A scoped agent key: its token works for what it may call, and is shown this once only.
    const name = unique('ci');
    const token = await keys.createKeyAndReadToken({ name, role: 'agent', tools: 'calculator' });
    const row = keys.row(name);
    await expect(row).toHaveAttribute('data-state', 'active');
    await expect(row).toContainText('agent');
    const asAgent = { headers: { authorization: `Bearer ${token}` } };
    const tools = await request.get(`${app.base}/api/v1/tools`, asAgent);
    expect(tools.status()).toBe(200);
    expect(((await tools.json()) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual([
      'calculator',
    ]);
    await page.reload();
    await expect(row).toHaveAttribute('data-state', 'active');
    await expect(keys.tokenPanel).toHaveCount(0);
    await expect(page.getByText(token)).toHaveCount(0);

    // Revoked: its next request is refused.
    await keys.revoke(keys.row(name));
    const refused = await request.get(`${app.base}/api/v1/tools`, asAgent);
    expect(refused.status()).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
  });
});
