import { createHash } from 'node:crypto';
import type { TraceContext } from '../executor/types';

export type { TraceContext } from '../executor/types';

/**
 * `traceparent` (W3C Trace Context, level 1): `version-traceid-parentid-flags`, lowercase hex.
 * Version 00 is exactly these four fields; a later version may add fields after a `-`.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** The spec asks vendors to keep `tracestate` within 512 characters; a longer one is dropped, not cut mid-entry. */
const MAX_TRACESTATE_CHARS = 512;
/** Printable ASCII (the header's allowed characters): nothing that could split a header. */
const TRACESTATE = /^[\x20-\x7e]*$/;

/** A header as Node gives it (`string | string[] | undefined`) or as `Headers.get` does (`string | null`). */
type HeaderValue = string | readonly string[] | null | undefined;

/**
 * The trace context of an incoming request, or null when it has no valid `traceparent` (a
 * malformed one is ignored, as the spec asks: the call then starts a trace of its own).
 * `tracestate` is kept only beside a valid `traceparent`; repeated headers are joined with commas.
 * @example traceContextFromHeaders('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'congo=t61rcWkgMzE')
 */
export function traceContextFromHeaders(traceparent: HeaderValue, tracestate?: HeaderValue): TraceContext | null {
  if (!traceparent) return null;
  // Two traceparent headers are ambiguous: the spec says to ignore them.
  if (typeof traceparent !== 'string') {
    if (traceparent.length !== 1) return null;
    traceparent = traceparent[0] as string;
  }
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return null;
  return { traceId, spanId, flags: Number.parseInt(flags, 16), tracestate: tracestateOf(tracestate) };
}

function tracestateOf(value: HeaderValue): string | null {
  if (!value) return null;
  const joined = (typeof value === 'string' ? value : value.join(',')).trim();
  if (joined === '' || joined.length > MAX_TRACESTATE_CHARS || !TRACESTATE.test(joined)) return null;
  return joined;
}

/** The `traceparent` header of a context (version 00). */
export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.flags & 0xff).toString(16).padStart(2, '0')}`;
}

/** What a tool that calls out (`http_request`) sends on as the trace context of a call. */
export type TracePropagation = (call: { traceId: string; traceContext?: TraceContext | null }) => TraceContext | null;

/** Without OpenTelemetry: the context the call arrived with, unchanged (or none). */
export const passOnIncoming: TracePropagation = (call) => call.traceContext ?? null;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The OpenTelemetry ids of a call's `execute_tool` span, derived from its Toolscope trace id so
 * that the exporter (at the call's end) and a tool calling out (during it) agree without sharing
 * state: the trace id is the parent's when the call arrived with one, else the Toolscope trace id
 * itself (a UUID's 32 hex digits, so the trace is found in the backend by the id Toolscope shows);
 * the span id is the first 16 hex digits of the id's SHA-256.
 */
export function callSpanIds(
  toolscopeTraceId: string,
  parent: TraceContext | null | undefined,
): { traceId: string; spanId: string } {
  const digest = createHash('sha256').update(toolscopeTraceId).digest('hex');
  let spanId = digest.slice(0, 16);
  if (spanId === ZERO_SPAN_ID) spanId = digest.slice(16, 32);
  let traceId = parent?.traceId;
  if (!traceId) {
    const hex = UUID.test(toolscopeTraceId) ? toolscopeTraceId.replace(/-/g, '').toLowerCase() : digest.slice(32);
    traceId = hex === ZERO_TRACE_ID ? digest.slice(32) : hex;
  }
  return { traceId, spanId };
}

/**
 * With OpenTelemetry: the call's own span is the parent of what a tool calls (same trace, the
 * incoming flags and `tracestate`; sampled when the call started a trace of its own).
 */
export const childOfCallSpan: TracePropagation = (call) => {
  const parent = call.traceContext ?? null;
  const ids = callSpanIds(call.traceId, parent);
  return { ...ids, flags: parent ? parent.flags : 1, tracestate: parent?.tracestate ?? null };
};
