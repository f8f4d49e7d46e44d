import type { Metadata } from 'next';
import { ImportView } from '@/components/import/import-view';

export const metadata: Metadata = { title: 'Import' };

/** Imports a Toolscope export file (drag and drop or a file picker) through `POST /api/v1/import`. */
export default function ImportPage() {
  return <ImportView />;
}
