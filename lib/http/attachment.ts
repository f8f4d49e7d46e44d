import type { ExportFile } from '../api/export-import';

/** An export file as a download: one JSON document, named after what it holds. */
export function attachment(file: ExportFile, name: string): Response {
  const safeName = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120);
  return new Response(`${JSON.stringify(file, null, 2)}\n`, {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="toolscope-${file.kind}-${safeName}.json"`,
      'cache-control': 'no-store',
    },
  });
}
