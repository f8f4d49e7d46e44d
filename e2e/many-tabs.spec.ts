import { type BrowserContext, expect, type Locator, type Page, type Request, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { SessionViewPage } from './pages/sessions-page';
import { TracesPage } from './pages/traces-page';

/** A GET of the event stream (the HEAD probes of a dropped stream are not streams). */
const isStream = (request: Request) =>
  request.method() === 'GET' && new URL(request.url()).pathname === '/api/v1/events';

/**
 * Every event stream a browser context opens: which page opened it, and whether it is still open
 * (not finished, not failed, its page not closed). `most` is the most open at once.
 */
function watchStreams(context: BrowserContext) {
  const streams: { request: Request; page: Page | null; ended: boolean }[] = [];
  let most = 0;
  const openNow = () => streams.filter((s) => !s.ended && !(s.page?.isClosed() ?? false));
  context.on('request', (request) => {
    if (!isStream(request)) return;
    let page: Page | null = null;
    try {
      page = request.frame().page();
    } catch {
      // a service worker's request: none here
    }
    streams.push({ request, page, ended: false });
    most = Math.max(most, openNow().length);
  });
  const ended = (request: Request) => {
    const stream = streams.find((s) => s.request === request);
    if (stream) stream.ended = true;
  };
  context.on('requestfinished', ended);
  context.on('requestfailed', ended);
  return {
    streams,
    openNow,
    most: () => most,
    /** A page about to be closed: its streams count as ended from now on. */
    closing(page: Page) {
      for (const stream of streams) if (stream.page === page) stream.ended = true;
    },
  };
}

/** A page's own live indicator where it has one; every page says the stream's state on the banner. */
const banner = (page: Page) => page.getByTestId('health');

test('ten tabs on ten pages share one event stream: all load and go live, and stay live when the leader tab closes', async ({
  browser,
  request,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const session = unique('tabs');
  const seed = await postToolCall(request, {
    id: unique('seed'),
    name: 'calculator',
    arguments: { expression: '1 + 1' },
    sessionId: session,
  });
  expect(seed.status).toBe('succeeded');

  const context = await browser.newContext({ baseURL });
  const watch = watchStreams(context);
  const tabs: { name: string; path: string; loaded: (page: Page) => Locator; indicator?: boolean }[] = [
    { name: 'traces', path: '/', loaded: (p) => p.getByTestId('traces-table'), indicator: true },
    { name: 'trace', path: `/traces/${seed.traceId}`, loaded: (p) => p.getByTestId('trace-view') },
    { name: 'sessions', path: '/sessions', loaded: (p) => p.getByTestId('sessions-search'), indicator: true },
    {
      name: 'session',
      path: `/sessions/${encodeURIComponent(session)}`,
      loaded: (p) => p.getByTestId('session-view'),
      indicator: true,
    },
    { name: 'approvals', path: '/approvals', loaded: (p) => p.getByTestId('approvals-view'), indicator: true },
    { name: 'tools', path: '/tools', loaded: (p) => p.getByTestId('tools-table') },
    { name: 'tool', path: '/tools/calculator', loaded: (p) => p.getByTestId('playground') },
    { name: 'faults', path: '/faults', loaded: (p) => p.getByTestId('faults-page') },
    { name: 'policy', path: '/policy', loaded: (p) => p.getByTestId('policy-page') },
    { name: 'audit', path: '/audit', loaded: (p) => p.getByTestId('audit-page') },
  ];

  const pages = new Map<string, Page>();
  for (const tab of tabs) {
    const page = await context.newPage();
    await page.goto(tab.path);
    await expect(tab.loaded(page), tab.name).toBeVisible();
    pages.set(tab.name, page);
  }
  for (const tab of tabs) {
    const page = pages.get(tab.name)!;
    await expect(banner(page), tab.name).toHaveAttribute('data-stream', 'live');
    await expect(page.getByTestId('stream-notice'), tab.name).toHaveCount(0);
    if (tab.indicator)
      await expect(page.getByTestId('live-indicator').first(), tab.name).toHaveAttribute('data-state', 'live');
  }
  // One stream for the ten tabs, never more than one open at a time.
  expect(watch.openNow()).toHaveLength(1);
  expect(watch.most()).toBe(1);
  expect(new URL(watch.streams[0]!.request.url()).searchParams.get('progress')).toBe('all');

  // A call made through the API reaches the list tab and the session tab.
  const list = new TracesPage(pages.get('traces')!);
  const sessionView = new SessionViewPage(pages.get('session')!);
  const live = await postToolCall(request, {
    id: unique('live'),
    name: 'calculator',
    arguments: { expression: '6 * 7' },
    sessionId: session,
  });
  await expect(list.row(live.traceId)).toBeVisible();
  await expect(sessionView.bar(live.traceId)).toBeVisible();

  // Closing the tab that holds the stream: another takes it over, resuming after the last event id.
  const leader = watch.openNow()[0]!.page!;
  const leaderName = [...pages].find(([, page]) => page === leader)![0];
  watch.closing(leader);
  await leader.close();
  pages.delete(leaderName);
  await expect.poll(() => watch.openNow().length).toBe(1);
  const successor = watch.openNow()[0]!;
  expect(successor.page).not.toBe(leader);
  expect(new URL(successor.request.url()).searchParams.get('last_event_id')).toMatch(/^\d+$/);
  for (const [name, page] of pages) await expect(banner(page), name).toHaveAttribute('data-stream', 'live');
  expect(watch.most()).toBe(1);

  const after = await postToolCall(request, {
    id: unique('after'),
    name: 'calculator',
    arguments: { expression: '2 + 3' },
    sessionId: session,
  });
  if (pages.has('traces')) await expect(list.row(after.traceId)).toBeVisible();
  if (pages.has('session')) await expect(sessionView.bar(after.traceId)).toBeVisible();
  expect(watch.most()).toBe(1);
  await context.close();
});
