import { expect, test } from '@playwright/test';
import { ownAppServer } from './app-server';
import { unique } from './pages/api';
import { LoginPage } from './pages/login-page';
import { TracesPage } from './pages/traces-page';

const TOKEN = 'e2e-token-0123456789abcdef';

/** A Toolscope of its own, started with TOOLSCOPE_TOKEN: people log in, scripts send a bearer token. */
test.describe('a Toolscope with a token', () => {
  const app = ownAppServer('toolscope-e2e-token-', { timeoutMs: 60_000, env: { TOOLSCOPE_TOKEN: TOKEN } });

  test('a page sends to the login form, which leads back to it; the API wants the token', async ({ page, request }) => {
    const session = unique('token-session');
    const call = {
      session_id: session,
      tool_calls: [
        { id: unique('call'), type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
      ],
    };
    const refused = await request.post(`${app.base}/api/v1/tool-calls`, { data: call });
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    const answer = await request.post(`${app.base}/api/v1/tool-calls`, {
      data: call,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status()).toBe(200);
    const traceId = ((await answer.json()) as { results: { trace_id: string }[] }).results[0]?.trace_id ?? '';

    await page.goto(`${app.base}/?session=${session}`);
    const login = new LoginPage(page);
    await login.expectShown();
    await login.logIn('not-the-token-at-all');
    await login.expectShown();
    await expect(login.error).toContainText('not valid here');

    await login.logIn(TOKEN);
    await expect(page).toHaveURL(`${app.base}/?session=${session}`);
    const traces = new TracesPage(page);
    await expect(traces.row(traceId)).toBeVisible();
    // The event stream takes the login cookie: the list is live.
    await traces.waitUntilLive();
    const cookies = await page.context().cookies(app.base);
    expect(cookies.find((c) => c.name === 'toolscope_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    // Without the token (the request fixture carries no cookie), the API is still closed.
    expect((await request.get(`${app.base}/api/v1/stats`)).status()).toBe(401);
    expect((await request.get(`${app.base}/api/v1/traces/${traceId}`)).status()).toBe(401);

    // A link followed from another site arrives without the SameSite=Strict cookie: the login
    // page finds the login by a same-site request and goes on by itself.
    await page.route('http://elsewhere.test/', (route) =>
      route.fulfill({ contentType: 'text/html', body: `<a href="${app.base}/tools">a Toolscope link</a>` }),
    );
    await page.goto('http://elsewhere.test/');
    const visited: string[] = [];
    page.on('framenavigated', (frame) => visited.push(frame.url()));
    await page.getByRole('link', { name: 'a Toolscope link' }).click();
    await expect(page).toHaveURL(`${app.base}/tools`);
    expect(visited).toContain(`${app.base}/login?next=%2Ftools`);
    await expect(page.getByRole('button', { name: 'Log out' })).toBeVisible();

    // Logging out clears the cookie: pages send to the login form again.
    await page.getByRole('button', { name: 'Log out' }).click();
    await login.expectShown();
    await page.goto(`${app.base}/tools`);
    await login.expectShown();
    await expect(page).toHaveURL(`${app.base}/login?next=%2Ftools`);
  });
});
