import { Activity } from 'lucide-react';
import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { NavLink } from '@/components/nav-link';
import { Providers } from '@/components/providers';
import { ThemeToggle } from '@/components/theme-toggle';
import { THEME_SCRIPT } from '@/lib/ui/theme';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Toolscope', template: '%s · Toolscope' },
  description: 'A visual debugger for the tool calls of LLM agents',
};

export default function RootLayout({ children }: { children: ReactNode }) {
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
          <header className="sticky top-0 z-30 border-b border-line bg-bg/95 backdrop-blur">
            <nav aria-label="Main" className="mx-auto flex h-11 max-w-[1600px] items-center gap-1 px-4">
              <Link href="/" className="mr-3 flex items-center gap-1.5 font-semibold tracking-tight">
                <Activity size={16} className="text-accent" aria-hidden />
                Toolscope
              </Link>
              <NavLink href="/">Traces</NavLink>
              <NavLink href="/tools">Tools</NavLink>
              <div className="ml-auto flex items-center gap-2">
                <ThemeToggle />
              </div>
            </nav>
          </header>
          <main id="main" className="mx-auto max-w-[1600px] px-4 py-4">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
