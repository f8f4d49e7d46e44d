import { describe, expect, it } from 'vitest';
import { isUrgent, suggestSpecifier } from './approvals';

describe('suggestSpecifier', () => {
  it('suggests the path for file tools', () => {
    expect(suggestSpecifier('write_file', { path: 'notes/a.md', content: 'x' })).toBe('notes/a.md');
    expect(suggestSpecifier('read_file', { path: 'src/index.ts' })).toBe('src/index.ts');
  });

  it('suggests the argv joined by spaces for run_shell', () => {
    expect(suggestSpecifier('run_shell', { command: ['git', 'status'] })).toBe('git status');
    expect(suggestSpecifier('run_shell', { command: [] })).toBeNull();
    expect(suggestSpecifier('run_shell', { command: 'git status' })).toBeNull();
  });

  it('suggests METHOD URL for http_request, GET by default', () => {
    expect(suggestSpecifier('http_request', { url: 'https://api.example.com/x', method: 'delete' })).toBe(
      'DELETE https://api.example.com/x',
    );
    expect(suggestSpecifier('http_request', { url: 'https://api.example.com/x' })).toBe(
      'GET https://api.example.com/x',
    );
  });

  it('suggests nothing for other tools or arguments that do not say', () => {
    expect(suggestSpecifier('calculator', { expression: '1+1' })).toBeNull();
    expect(suggestSpecifier('write_file', '{"path":')).toBeNull();
    expect(suggestSpecifier('write_file', null)).toBeNull();
  });
});

describe('isUrgent', () => {
  it('is the last minute of a long wait, the last quarter of a short one', () => {
    expect(isUrgent(0, 600_000, 539_000)).toBe(false);
    expect(isUrgent(0, 600_000, 540_000)).toBe(true);
    expect(isUrgent(0, 20_000, 14_000)).toBe(false);
    expect(isUrgent(0, 20_000, 15_000)).toBe(true);
    expect(isUrgent(0, 20_000, 25_000)).toBe(true);
  });
});
