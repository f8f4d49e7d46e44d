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

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A wall-clock reading in one zone. */
export interface ZonedParts {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

// One formatter per zone: building an Intl.DateTimeFormat costs far more than using one.
function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    // en-US and h23 pinned: the server's and the browser's locales must not change the text.
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall clock of `zone` at `epochMs` (an IANA name; `UTC` for UTC). */
export function zonedParts(epochMs: number, zone: string): ZonedParts {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(epochMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    millisecond: ((epochMs % 1000) + 1000) % 1000,
  };
}

/** Minutes `zone` is ahead of UTC at `epochMs` (negative west of Greenwich). */
export function utcOffsetMinutes(epochMs: number, zone: string): number {
  const p = zonedParts(epochMs, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.millisecond);
  return Math.round((asUtc - epochMs) / 60_000);
}

/**
 * The zone's offset as a short label.
 * @example formatUtcOffset(t, 'UTC') // 'UTC'; 'Europe/Paris' in winter // 'UTC+01'; 'Asia/Kolkata' // 'UTC+05:30'
 */
export function formatUtcOffset(epochMs: number, zone: string): string {
  const offset = utcOffsetMinutes(epochMs, zone);
  if (offset === 0) return 'UTC';
  const sign = offset > 0 ? '+' : '-';
  const abs = Math.abs(offset);
  const minutes = abs % 60;
  return `UTC${sign}${pad(Math.floor(abs / 60))}${minutes ? `:${pad(minutes)}` : ''}`;
}

const clock = (p: ZonedParts) => `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}.${pad(p.millisecond, 3)}`;

/**
 * A time for a list row in `zone`: `HH:MM:SS.mmm` on the day of `now`, `Nov 28 HH:MM:SS.mmm`
 * on other days of the year, `2025-11-28 HH:MM:SS.mmm` in other years.
 */
export function formatClock(epochMs: number, zone: string, now: number): string {
  const p = zonedParts(epochMs, zone);
  const today = zonedParts(now, zone);
  if (p.year !== today.year) return `${p.year}-${pad(p.month)}-${pad(p.day)} ${clock(p)}`;
  if (p.month !== today.month || p.day !== today.day) return `${MONTHS[p.month - 1]} ${p.day} ${clock(p)}`;
  return clock(p);
}

/** A full date and time in `zone`: `YYYY-MM-DD HH:MM:SS.mmm`. */
export function formatDateTime(epochMs: number, zone: string): string {
  const p = zonedParts(epochMs, zone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${clock(p)}`;
}

/**
 * How long ago `epochMs` was, for a hover: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 days ago`
 * (and `in 5 s` for a clock ahead of this one).
 */
export function formatRelative(epochMs: number, now: number): string {
  const delta = now - epochMs;
  const future = delta < 0;
  const s = Math.abs(delta) / 1000;
  let text: string;
  if (s < 1) return 'just now';
  if (s < 60) text = `${Math.floor(s)} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 86_400) text = `${Math.floor(s / 3600)} h`;
  else {
    const days = Math.floor(s / 86_400);
    text = `${days} day${days === 1 ? '' : 's'}`;
  }
  return future ? `in ${text}` : `${text} ago`;
}

/**
 * A count of characters or items, short: `950`, `11.2k`, `2.1M`.
 * @example formatCount(11_234) // '11.2k'
 */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${trim((n / 1000).toFixed(n < 10_000 ? 2 : 1))}k`;
  return `${trim((n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1))}M`;
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

/**
 * A running timer or countdown as a clock: `0:07`, `4:32`, `1:02:09` (negative counts as 0).
 * @example formatTimer(272_400) // '4:32'
 */
export function formatTimer(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * A trace id short enough for a dense row: its last 8 characters. Trace ids are UUIDv7, whose
 * first characters are the time and so the same for calls made close together.
 * @example shortId('01a22add-8c5d-7692-857a-b13c07a8709c') // '…07a8709c'
 */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}
