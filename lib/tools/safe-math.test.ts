import * as mathjs from 'mathjs';
import { describe, expect, it } from 'vitest';
import { crowding } from '../hardening/testing/machine-pace';
import { createSafeMath, MAX_RANGE_ELEMENTS } from './safe-math';

const { math: safeMath, parse: parseExpression } = createSafeMath(mathjs, { maxRangeElements: MAX_RANGE_ELEMENTS });

const run = (expression: string) => parseExpression(expression).compile().evaluate();
const namespace = safeMath as unknown as Record<string, (...args: unknown[]) => unknown>;

describe('safeMath', () => {
  it.each(['import', 'createUnit', 'evaluate', 'parse', 'simplify', 'derivative', 'resolve', 'compile', 'help'])(
    'has %s disabled, even when called directly',
    (name) => {
      expect(() => namespace[name]?.('1')).toThrow(`Function ${name} is disabled`);
    },
  );

  it('still parses through the parse kept from before the guards', () => {
    expect(run('1 + 2')).toBe(3);
  });

  it('keeps ranges inclusive, as the expression syntax promises, within the cap', () => {
    expect(safeMath.format(run('1:4'))).toBe('[1, 2, 3, 4]');
    expect(safeMath.format(run('10:-5:0'))).toBe('[10, 5, 0]');
    expect(() => run(`1:${MAX_RANGE_ELEMENTS + 1}`)).toThrow(/more than 10000 elements/);
    expect(() => run('1:0:5')).toThrow(/more than/);
  });

  it('answers combinations and permutations that overflow without looping', () => {
    const started = performance.now();
    expect(run('combinations(1e15, 5e14)')).toBe(Number.POSITIVE_INFINITY);
    expect(run('permutations(1e15, 1e14)')).toBe(Number.POSITIVE_INFINITY);
    expect(performance.now() - started).toBeLessThan(100 * crowding());
  });

  it('leaves small combinations and permutations, and their errors, to mathjs', () => {
    expect(run('combinations(5, 2)')).toBe(10);
    expect(run('combinations(3000, 2)')).toBe(4498500);
    expect(run('permutations(5, 2)')).toBe(20);
    expect(run('permutations(5)')).toBe(120);
    expect(() => run('combinations(2, 5)')).toThrow();
    expect(() => run('combinations(1.5, 1)')).toThrow();
  });
});
