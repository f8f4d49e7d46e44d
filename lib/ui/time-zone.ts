/**
 * The one time-zone decision of the UI. It lives in a cookie so the server renders times in the
 * same zone as the browser will: no UTC-then-local jump at hydration.
 */

/** The cookie holding the choice: `utc`, `server`, or an IANA zone name picked from the browser. */
export const TIME_ZONE_COOKIE = 'toolscope-tz';

/** What a person chose; `zone` is an IANA name (only for `fixed`). */
export type TimeZoneChoice = { kind: 'utc' } | { kind: 'server' } | { kind: 'fixed'; zone: string };

/** The zone every time is rendered in, resolved on the server and handed to the browser. */
export interface ResolvedTimeZone {
  choice: TimeZoneChoice;
  /** IANA name actually used (`UTC` for UTC). */
  zone: string;
  /** The server's own zone, offered in the menu. */
  serverZone: string;
}

/** Whether `zone` is an IANA zone this runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Reads the cookie value; anything unknown falls back to the server's zone (the default). */
export function parseTimeZoneChoice(value: string | undefined): TimeZoneChoice {
  if (value === 'utc') return { kind: 'utc' };
  if (value && value !== 'server' && isValidTimeZone(value)) return { kind: 'fixed', zone: value };
  return { kind: 'server' };
}

/** The cookie value of a choice. */
export function timeZoneCookieValue(choice: TimeZoneChoice): string {
  return choice.kind === 'fixed' ? choice.zone : choice.kind;
}

/** The zone this process runs in (the `TZ` environment variable, else the system's). */
export function runtimeTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // an odd TZ value must not take every page down with it
  return zone && isValidTimeZone(zone) ? zone : 'UTC';
}

/** Resolves a choice against the server's zone. */
export function resolveTimeZone(choice: TimeZoneChoice, serverZone: string): ResolvedTimeZone {
  const zone = choice.kind === 'utc' ? 'UTC' : choice.kind === 'fixed' ? choice.zone : serverZone;
  return { choice, zone, serverZone };
}
