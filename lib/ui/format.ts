/**
 * Formats a duration for people, from microseconds to hours, keeping about three significant
 * figures so a 2 ms call and a 10-minute call both read well.
 * @example formatDuration(0.25) // '250 µs'; formatDuration(1534) // '1.53 s'; formatDuration(605000) // '10 min 5 s'
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms === 0) return '0 ms';
  if (ms < 1) return `${Math.max(1, Math.round(ms * 1000))} µs`;
  if (ms < 10) return `${trim(ms.toFixed(2))} ms`;
  if (ms < 100) return `${trim(ms.toFixed(1))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 10) return `${trim(s.toFixed(2))} s`;
  if (s < 60) return `${trim(s.toFixed(1))} s`;
  const totalSeconds = Math.round(s);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const sec = totalSeconds % 60;
  if (h > 0) return `${h} h ${m} min`;
  return sec === 0 ? `${m} min` : `${m} min ${sec} s`;
}

function trim(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** Byte counts as B / KiB / MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trim((bytes / 1024).toFixed(1))} KiB`;
  return `${trim((bytes / (1024 * 1024)).toFixed(1))} MiB`;
}

/** A wall-clock time as `HH:MM:SS.mmm` in UTC (the server's rendering, before the browser's local one). */
export function formatTimeUtc(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(11, 23);
}

/** A wall-clock time as `YYYY-MM-DD HH:MM:SS.mmm` in UTC. */
export function formatDateTimeUtc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ')} UTC`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A wall-clock time in the browser's zone: `HH:MM:SS.mmm`, with the date when not today. */
export function formatTimeLocal(epochMs: number, now = Date.now()): string {
  const d = new Date(epochMs);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
  const today = new Date(now);
  const sameDay =
    d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  return sameDay ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

/** Error rate as a percentage with one decimal. */
export function formatPercent(part: number, whole: number): string {
  if (whole === 0) return '—';
  return `${trim(((part / whole) * 100).toFixed(1))}%`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Steps a clock reader finds round, from one second up. */
const CLOCK_STEPS = [1, 2, 5, 10, 15, 30]
  .map((n) => n * SECOND)
  .concat(
    [1, 2, 5, 10, 15, 30].map((n) => n * MINUTE),
    [1, 2, 3, 6, 12, 24].map((n) => n * HOUR),
  );

/**
 * Ticks for a time axis from 0 to at least `total` ms: at most 8 round steps — 1, 2 or 5 × 10^n
 * below a second, clock steps (5 s, 1 min, 15 min...) above.
 * @example axisTicks(10) // [0, 2, 4, 6, 8, 10]; axisTicks(600_000) // 0, 2 min, 4 min... 10 min
 */
export function axisTicks(total: number): number[] {
  if (!(total > 0)) return [0];
  let step: number;
  if (total / 8 < SECOND) {
    const magnitude = 10 ** Math.floor(Math.log10(total / 8));
    step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => total / s <= 8) ?? magnitude * 10;
  } else {
    step = CLOCK_STEPS.find((s) => total / s <= 8) ?? Math.ceil(total / 8 / HOUR) * HOUR;
  }
  const ticks: number[] = [];
  const count = Math.ceil(total / step - 1e-9);
  for (let i = 0; i <= count; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}
