import { describe, expect, it } from 'vitest';
import {
  apiExportUrl,
  apiListUrl,
  filtersToSearch,
  hasFilters,
  parseTraceFilters,
  toTraceQuery,
} from './trace-filters';

describe('trace filters in the URL', () => {
  it('round-trips through search params and drops invalid values', () => {
    const filters = parseTraceFilters({ tool: 'calculator', status: 'failed', range: '1h', q: ' 2*3 ', bogus: 'x' });
    expect(filters).toEqual({ tool: 'calculator', status: 'failed', range: '1h', q: '2*3' });
    expect(parseTraceFilters(new URLSearchParams(filtersToSearch(filters)))).toEqual(filters);
    expect(parseTraceFilters({ status: 'nope', range: '3y', from: 'not a date' })).toEqual({});
  });
  it('resolves relative ranges and absolute bounds into a store query', () => {
    const now = 1_000_000_000;
    expect(toTraceQuery({ range: '15m', session: 's' }, now)).toEqual({
      limit: 50,
      sessionId: 's',
      from: now - 900_000,
    });
    expect(toTraceQuery({ from: '1970-01-01T00:00:01Z', to: '5000' }, now)).toMatchObject({ from: 1000, to: 5000 });
  });
  it('builds the API URL of the first page without the cursor', () => {
    expect(apiListUrl({ tool: 'a b', cursor: 'abc' }, 0, 50)).toBe('/api/v1/traces?limit=50&tool=a+b');
  });
  it('builds the export URL of the current filter, relative range resolved', () => {
    expect(apiExportUrl({}, 0)).toBe('/api/v1/traces/export');
    expect(apiExportUrl({ status: 'failed', range: '15m', q: 'x', cursor: 'c' }, 1_000_000)).toBe(
      '/api/v1/traces/export?status=failed&q=x&from=100000',
    );
  });
  it('keeps the fault-injected filter in the URL and sends it to the store and the API as faulted', () => {
    const filters = parseTraceFilters({ faulted: 'true', tool: 'calculator' });
    expect(filters).toEqual({ tool: 'calculator', faulted: true });
    expect(filtersToSearch(filters)).toBe('?tool=calculator&faulted=true');
    expect(parseTraceFilters(new URLSearchParams(filtersToSearch(filters)))).toEqual(filters);
    expect(parseTraceFilters({ faulted: 'false' })).toEqual({});
    expect(parseTraceFilters({ faulted: 'yes' })).toEqual({});
    expect(hasFilters({ faulted: true })).toBe(true);
    expect(toTraceQuery(filters, 0)).toEqual({ limit: 50, tool: 'calculator', faulted: true });
    expect(apiListUrl(filters, 0, 50)).toBe('/api/v1/traces?limit=50&tool=calculator&faulted=true');
    expect(apiExportUrl({ faulted: true }, 0)).toBe('/api/v1/traces/export?faulted=true');
  });
});
