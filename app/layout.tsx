import { Activity } from 'lucide-react';
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { ViewerProvider } from '@/components/access/viewer';
import { WhoAmI } from '@/components/access/who-am-i';
import { ApprovalsLive } from '@/components/approvals/approvals-live';
import { ApprovalsNavLink } from '@/components/approvals/approvals-nav-link';
import { FaultsNavLink, FaultsPhoneIndicator } from '@/components/faults/faults-nav-link';
import { HealthBanner } from '@/components/health/health-banner';
import { NavLink } from '@/components/nav-link';
import { PhoneMenu } from '@/components/phone-menu';
import { Providers } from '@/components/providers';
import { ShortcutsDialog } from '@/components/shortcuts-dialog';
import { ThemeToggle } from '@/components/theme-toggle';
import { TimeZoneMenu } from '@/components/time-zone-menu';
import { TimeZoneProvider } from '@/components/time-zone-provider';
import { type Action, reachOf } from '@/lib/access/roles';
import { getToolscope } from '@/lib/server/toolscope';
import { THEME_SCRIPT } from '@/lib/ui/theme';
import { parseTimeZoneChoice, resolveTimeZone, runtimeTimeZone, TIME_ZONE_COOKIE } from '@/lib/ui/time-zone';
import { currentPrincipal } from './_lib/principal';
import { faultRulesSnapshot } from './faults/snapshot';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Toolscope', template: '%s · Toolscope' },
  description: 'A visual debugger for the tool calls of LLM agents',
};

/**
 * The shell of every page: header (navigation with the approvals and active-faults counts, time
 * zone, shortcuts, theme), the health banner (shown while the server is degraded) and main.
 * The time zone is resolved here, on the server, from the cookie: server and browser then render
 * every time in the same zone.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const timeZone = resolveTimeZone(
    parseTimeZoneChoice((await cookies()).get(TIME_ZONE_COOKIE)?.value),
    runtimeTimeZone(),
  );
  const principal = await currentPrincipal();
  // Not logged in (the guard lets only the login page through then): the page alone, no live header.
  if (!principal) {
    return (
      <html lang="en" suppressHydrationWarning>
        <head>
          {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script that sets the theme before first paint. */}
          <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
        </head>
        <body className="min-h-screen antialiased">
          <main id="main" className="mx-auto max-w-[1600px] px-3 py-4 sm:px-4">
            {children}
          </main>
        </body>
      </html>
    );
  }
  const renderedAt = Date.now();
  const ts = getToolscope();
  // The nav's fault indicator is right from the first paint: a rule breaking tools is never hidden.
  const faults = faultRulesSnapshot(ts);
  const viewer = {
    id: principal.id,
    name: principal.name,
    role: principal.role,
    kind: principal.kind,
    localMode: principal.kind === 'local',
  };
  const may = (action: Action) => reachOf(principal.role, action) !== null;
  const sections = (
    <>
      <NavLink href="/">Traces</NavLink>
      <NavLink href="/sessions">Sessions</NavLink>
      <NavLink href="/tools">Tools</NavLink>
      <ApprovalsNavLink />
      <NavLink href="/policy">Policy</NavLink>
      <FaultsNavLink initial={faults} renderedAt={renderedAt} />
      {may('calls.import') && <NavLink href="/import">Import</NavLink>}
      <NavLink href="/audit">Audit</NavLink>
      {may('keys.manage') && <NavLink href="/keys">Keys</NavLink>}
    </>
  );
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script that sets the theme before first paint. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen antialiased">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-bg focus:px-2 focus:py-1"
        >
          Skip to content
        </a>
        <Providers>
          <ViewerProvider viewer={viewer}>
            <ApprovalsLive>
              <TimeZoneProvider initial={timeZone} renderedAt={renderedAt}>
                <header className="sticky top-0 z-30 border-b border-line bg-bg/95 backdrop-blur">
                  <nav aria-label="Main" className="mx-auto flex h-11 max-w-[1600px] items-center gap-1 px-3 sm:px-4">
                    <Link
                      href="/"
                      className="mr-1 flex shrink-0 items-center gap-1.5 font-semibold tracking-tight sm:mr-3"
                    >
                      <Activity size={16} className="text-accent" aria-hidden />
                      <span className="max-sm:sr-only">Toolscope</span>
                    </Link>
                    {/* On a phone the sections are in the Menu instead (with the approvals count). */}
                    <div className="relative flex min-w-0 items-center gap-1 overflow-x-auto whitespace-nowrap [scrollbar-width:none] max-sm:hidden">
                      {sections}
                    </div>
                    <PhoneMenu>{sections}</PhoneMenu>
                    <div className="ml-auto flex shrink-0 items-center gap-1.5 pl-1">
                      <FaultsPhoneIndicator initial={faults} renderedAt={renderedAt} />
                      <TimeZoneMenu />
                      <ShortcutsDialog />
                      <ThemeToggle />
                      <WhoAmI />
                    </div>
                  </nav>
                </header>
                <HealthBanner />
                <main id="main" className="mx-auto max-w-[1600px] px-3 py-4 sm:px-4">
                  {children}
                </main>
              </TimeZoneProvider>
            </ApprovalsLive>
          </ViewerProvider>
        </Providers>
      </body>
    </html>
  );
}
