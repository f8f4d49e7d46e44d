'use client';

import { useEffect } from 'react';
import { ErrorNotice } from '@/components/error-notice';
import { THEME_SCRIPT } from '@/lib/ui/theme';
import './globals.css';

/** When even the root layout fails: the same notice in a document of its own, in the user's theme. */
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <title>Error · Toolscope</title>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script that sets the theme before first paint. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen antialiased">
        <main className="mx-auto max-w-[1600px] px-4">
          <ErrorNotice error={error} retry={retry} />
        </main>
      </body>
    </html>
  );
}
