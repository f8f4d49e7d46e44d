'use client';

import { useEffect } from 'react';

/**
 * On the login page: asks, same-site, whether the browser holds a valid login after all (a link
 * followed from another site arrives without the SameSite=Strict cookie) and if so goes on to `next`.
 */
export function ResumeSession({ next }: { next: string }) {
  useEffect(() => {
    const controller = new AbortController();
    fetch('/auth/session', { signal: controller.signal })
      .then((response) => response.json() as Promise<{ signed_in?: boolean }>)
      .then((body) => {
        if (body.signed_in) window.location.replace(next);
      })
      .catch(() => {
        // offline or aborted: the form stays
      });
    return () => controller.abort();
  }, [next]);
  return null;
}
