import { describe, expect, it } from 'vitest';
import { type FieldIssue, issuesByPath, mergeFieldIssues } from './json-issues';

const issue = (path: string, message: string, code = 'too_small'): FieldIssue => ({ path, message, code });

describe('mergeFieldIssues', () => {
  it('shows an issue reported in the same words by both sides once', () => {
    const same = issue('expression', 'Required');
    expect(mergeFieldIssues([same], [{ ...same }])).toEqual([same]);
  });

  it("prefers the server's words when both report the same path and code differently", () => {
    const local = issue('expression', 'Required: must not be empty');
    const server = issue('expression', 'Too small: expected string to have >=1 characters');
    expect(mergeFieldIssues([local], [server])).toEqual([server]);
  });

  it("lets the server's issue on a path replace a local one with another code (zod and Ajv word it differently)", () => {
    const local = issue('expression', 'Must not be empty', 'minLength');
    const server = issue('expression', 'Too small: expected string to have >=1 characters', 'too_small');
    expect(mergeFieldIssues([local], [server])).toEqual([server]);
  });

  it('keeps issues that only one side found, server first', () => {
    const local = issue('precision', 'At most 20', 'too_big');
    const server = issue('headers.', 'A header name cannot be empty', 'invalid_key');
    const other = issue('expression', 'Required', 'invalid_type');
    expect(mergeFieldIssues([local, other], [server])).toEqual([server, local, other]);
  });

  it('keeps two different server issues on one path', () => {
    const a = issue('name', 'Too short');
    const b = issue('name', 'Must match ^[a-z]+$', 'invalid_format');
    expect(mergeFieldIssues([], [a, b])).toEqual([a, b]);
  });
});

describe('issuesByPath', () => {
  it('groups by path, in order', () => {
    const a = issue('x', 'one');
    const b = issue('y', 'two');
    const c = issue('x', 'three');
    expect([...issuesByPath([a, b, c])]).toEqual([
      ['x', [a, c]],
      ['y', [b]],
    ]);
  });
});
