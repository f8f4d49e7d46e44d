import Link from 'next/link';
import { SERIES_RANGES, type SeriesRange } from '@/lib/db/sqlite-tool-series';

export const RANGE_LABEL: Record<SeriesRange, string> = { hour: 'Last hour', day: 'Last day', week: 'Last week' };

/**
 * The hour / day / week switch: plain links to `?range=`, so the range lives in the URL (shareable,
 * back button) and the server renders the new range first.
 */
export function RangeSwitch({ basePath, range }: { basePath: string; range: SeriesRange }) {
  return (
    <nav aria-label="Time range" className="inline-flex rounded border border-line p-0.5" data-testid="range-switch">
      {SERIES_RANGES.map((r) => (
        <Link
          key={r}
          href={`${basePath}?range=${r}`}
          scroll={false}
          replace
          aria-current={r === range ? 'page' : undefined}
          data-range={r}
          className="rounded px-2 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg aria-[current=page]:bg-muted aria-[current=page]:font-medium aria-[current=page]:text-fg"
        >
          {RANGE_LABEL[r]}
        </Link>
      ))}
    </nav>
  );
}
