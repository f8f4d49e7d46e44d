import fc from 'fast-check';
import * as mathjs from 'mathjs';
import { describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_LENGTH } from './calculator-pool';
import { createExpressionCheck } from './check-expression';
import { createEvaluator } from './evaluate-expression';
import { evaluatePlainArithmetic, PLAIN_ARITHMETIC_MAX_LENGTH } from './plain-arithmetic';
import { createSafeMath } from './safe-math';

/** The calculator's own evaluator (what its workers run), here on the test's thread. */
const safeMath = createSafeMath(mathjs, { maxRangeElements: 10_000 });
const evaluate = createEvaluator(safeMath, createExpressionCheck(safeMath.math), {
  maxExpressionLength: MAX_EXPRESSION_LENGTH,
});

/** Plain arithmetic as people and models write it: numbers, + - * /, signs, parentheses, spaces. */
const number = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }).map(String),
  fc
    .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 9_999 }))
    .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(4, '0')}`),
  fc.constantFrom('0', '0.1', '0.2', '0.3', '1', '3', '7', '10', '1000000000000', '999999999999999'),
);
const space = fc.constantFrom('', '', ' ', '  ');
const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    fc
      .tuple(tie('expr'), space, fc.constantFrom('+', '-', '*', '/'), space, tie('expr'))
      .map(([a, s1, op, s2, b]) => `${a}${s1}${op}${s2}${b}`),
    fc.tuple(fc.constantFrom('-', '+', '--'), tie('expr')).map(([sign, e]) => `${sign}${e}`),
    tie('expr').map((e) => `(${e})`),
  ),
})).expr;

describe('evaluatePlainArithmetic', () => {
  it('answers exactly what the calculator’s mathjs evaluator answers, or leaves it to the worker', () => {
    let answered = 0;
    fc.assert(
      fc.property(expression, (text) => {
        const fast = evaluatePlainArithmetic(text);
        if (fast === null) return;
        answered++;
        expect(evaluate({ expression: text })).toEqual({ ok: true, output: fast });
      }),
      { numRuns: 3000 },
    );
    // Most generated expressions are plain arithmetic within the length limit: the path is used.
    expect(answered).toBeGreaterThan(1500);
  });

  it.each([
    ['2+2', 4],
    [' 2 * (3 + 4) ', 14],
    ['0.1 + 0.2', 0.3],
    ['1/3', 0.333333333333333],
    ['-(-2) - -3', 5],
    ['10 / 4 * 2', 5],
    ['-0', -0],
  ])('evaluates %s', (text, result) => {
    expect(evaluatePlainArithmetic(text)).toEqual({ expression: text, result, type: 'number' });
  });

  it.each([
    ['sqrt(2)', 'functions'],
    ['2^10', 'powers'],
    ['10 % 3', 'modulo and percent'],
    ['2(3)', 'implicit multiplication'],
    ['2 3', 'implicit multiplication by a space'],
    ['(1)(2)', 'implicit multiplication of groups'],
    ['1e5', 'exponents'],
    ['5 cm', 'units'],
    ['007', 'a leading zero'],
    ['1.', 'a trailing point'],
    ['.5', 'a leading point'],
    ['1.2.3', 'two points'],
    ['1/0', 'a result that is not finite'],
    ['0/0', 'NaN'],
    ['1234567890123456', 'more digits than a double holds'],
    ['1\n2', 'several expressions'],
    ['', 'nothing'],
    ['(1', 'an open parenthesis'],
    ['1)', 'a stray parenthesis'],
    [`${'('.repeat(40)}1${')'.repeat(40)}`, 'deep nesting'],
    [`${'-'.repeat(40)}1`, 'a long chain of signs'],
    [`1${'+1'.repeat(PLAIN_ARITHMETIC_MAX_LENGTH)}`, 'more than 200 characters'],
  ])('leaves %s to the worker (%s)', (text) => {
    expect(evaluatePlainArithmetic(text)).toBeNull();
  });
});
