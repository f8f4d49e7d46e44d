'use client';

import { useEffect } from 'react';
import { ErrorNotice } from '@/components/error-notice';

/** Any page that fails to render shows this inside the normal header, with a retry. */
export default function PageError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return <ErrorNotice error={error} retry={retry} />;
}
