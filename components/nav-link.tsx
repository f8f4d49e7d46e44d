'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';

/** A top-navigation link that marks itself current (aria-current) for its section. */
export function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const pathname = usePathname();
  const current = href === '/' ? pathname === '/' || pathname.startsWith('/traces') : pathname.startsWith(href);
  return (
    <Link
      href={href}
      aria-current={current ? 'page' : undefined}
      className={`rounded px-2 py-1 ${current ? 'bg-muted font-medium text-fg' : 'text-fg-muted hover:bg-muted hover:text-fg'}`}
    >
      {children}
    </Link>
  );
}
