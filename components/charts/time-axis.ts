import type { SeriesRange } from '@/lib/db/sqlite-tool-series';

const pad = (n: number) => String(n).padStart(2, '0');
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * A time on a chart axis or in a chart summary: `HH:MM` for the hour and day charts, `Mon 14:00`
 * for the week. In UTC until hydrated (`local` false), so the server and the first client render
 * agree; in the browser's zone after.
 */
export function formatChartTime(ms: number, range: SeriesRange, local: boolean): string {
  const d = new Date(ms);
  const [h, m, day] = local
    ? [d.getHours(), d.getMinutes(), d.getDay()]
    : [d.getUTCHours(), d.getUTCMinutes(), d.getUTCDay()];
  const time = `${pad(h)}:${pad(m)}`;
  return range === 'week' ? `${DAYS[day]} ${time}` : time;
}

/** An axis tick: the time, or for the week (ticks at midnight) the day, as `Mon 30`. */
export function formatChartTick(ms: number, range: SeriesRange): string {
  const d = new Date(ms);
  return range === 'week' ? `${DAYS[d.getDay()]} ${d.getDate()}` : formatChartTime(ms, range, true);
}

/** Axis ticks every 10 minutes (hour), 3 hours (day) or day (week), aligned to the local clock. */
export function chartTicks(from: number, to: number, range: SeriesRange): number[] {
  const step = { hour: 10 * 60_000, day: 3 * 3_600_000, week: 24 * 3_600_000 }[range];
  // Align to the local clock: a tick at 00:00 local, not at UTC midnight.
  const offset = new Date(from).getTimezoneOffset() * 60_000;
  const first = Math.ceil((from - offset) / step) * step + offset;
  const ticks: number[] = [];
  for (let t = first; t <= to; t += step) ticks.push(t);
  return ticks;
}
