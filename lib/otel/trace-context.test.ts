import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  callSpanIds,
  childOfCallSpan,
  formatTraceparent,
  passOnIncoming,
  traceContextFromHeaders,
} from './trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceContextFromHeaders', () => {
  it('reads a W3C traceparent and its tracestate', () => {
    expect(traceContextFromHeaders(`00-${TRACE}-${SPAN}-01`, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7')).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: 1,
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    });
    expect(traceContextFromHeaders(`00-${TRACE}-${SPAN}-00`, undefined)).toMatchObject({ flags: 0, tracestate: null });
    // Repeated tracestate headers are one list.
    expect(traceContextFromHeaders(`00-${TRACE}-${SPAN}-01`, ['a=1', 'b=2'])?.tracestate).toBe('a=1,b=2');
  });

  it('takes a later version’s first four fields and ignores what follows', () => {
    expect(traceContextFromHeaders(`01-${TRACE}-${SPAN}-01-whatever`)).toMatchObject({ traceId: TRACE, spanId: SPAN });
  });

  it.each([
    ['no header', undefined],
    ['empty', ''],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['two headers', [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`]],
    ['garbage', 'not a traceparent'],
  ])('ignores an invalid traceparent (%s): the call starts a trace of its own', (_, header) => {
    expect(traceContextFromHeaders(header, 'a=1')).toBeNull();
  });

  it('drops a tracestate that is too long or not printable ASCII, keeping the traceparent', () => {
    expect(traceContextFromHeaders(`00-${TRACE}-${SPAN}-01`, `a=${'x'.repeat(600)}`)?.tracestate).toBeNull();
    expect(traceContextFromHeaders(`00-${TRACE}-${SPAN}-01`, 'a=1\r\nx: y')?.tracestate).toBeNull();
  });

  it('formats what it parses back unchanged (version 00)', () => {
    const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
    fc.assert(
      fc.property(hex(32), hex(16), fc.integer({ min: 0, max: 255 }), (traceId, spanId, flags) => {
        fc.pre(!/^0+$/.test(traceId) && !/^0+$/.test(spanId));
        const header = `00-${traceId}-${spanId}-${flags.toString(16).padStart(2, '0')}`;
        const parsed = traceContextFromHeaders(header);
        expect(parsed && formatTraceparent(parsed)).toBe(header);
      }),
    );
  });
});

describe('the call span’s ids and what http_request sends on', () => {
  const toolscopeId = '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b';

  it('a call without a parent is a trace of its own whose id is its Toolscope trace id; the span id is stable', () => {
    const ids = callSpanIds(toolscopeId, null);
    expect(ids.traceId).toBe('019a2b3c4d5e7f608a1b2c3d4e5f6a7b');
    expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(callSpanIds(toolscopeId, undefined)).toEqual(ids);
    expect(callSpanIds('019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7c', null).spanId).not.toBe(ids.spanId);
    // Ids that are not UUIDs (tests' own) still give a valid trace id.
    expect(callSpanIds('trace-1', null).traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a call with a parent joins the parent’s trace', () => {
    const parent = { traceId: TRACE, spanId: SPAN, flags: 1, tracestate: 'a=1' };
    expect(callSpanIds(toolscopeId, parent)).toEqual({ traceId: TRACE, spanId: callSpanIds(toolscopeId, null).spanId });
  });

  it('without OpenTelemetry the incoming context is passed on unchanged; with it, the call span is the parent', () => {
    const parent = { traceId: TRACE, spanId: SPAN, flags: 0, tracestate: 'a=1' };
    expect(passOnIncoming({ traceId: toolscopeId, traceContext: parent })).toBe(parent);
    expect(passOnIncoming({ traceId: toolscopeId })).toBeNull();
    const { spanId } = callSpanIds(toolscopeId, null);
    expect(childOfCallSpan({ traceId: toolscopeId, traceContext: parent })).toEqual({
      traceId: TRACE,
      spanId,
      flags: 0,
      tracestate: 'a=1',
    });
    expect(childOfCallSpan({ traceId: toolscopeId, traceContext: null })).toEqual({
      traceId: '019a2b3c4d5e7f608a1b2c3d4e5f6a7b',
      spanId,
      flags: 1,
      tracestate: null,
    });
  });
});
