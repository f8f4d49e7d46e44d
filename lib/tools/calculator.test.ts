import fc from 'fast-check';
import * as mathjs from 'mathjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../executor/errors';
import { crowding } from '../hardening/testing/machine-pace';
import { createCalculatorTool, MAX_EXPRESSION_LENGTH } from './calculator';
import { CALCULATION_DEADLINE_MS, createCalculatorPool, sharedCalculatorPool } from './calculator-pool';
import { createExpressionCheck } from './check-expression';
import { createSafeMath } from './safe-math';
import { createTestContext, expectToolError } from './test-helpers';

const tool = createCalculatorTool();
const ctx = createTestContext();
const calc = async (expression: string, precision?: number) => tool.execute({ expression, precision }, ctx);

describe('calculator', () => {
  it('declares a pure, deterministic tool with a tight deadline and no retries', () => {
    expect(tool.name).toBe('calculator');
    expect(tool.sideEffect).toBe('none');
    expect(CALCULATION_DEADLINE_MS).toBeLessThan(1_000);
    expect(tool.timeoutMs).toBeLessThanOrEqual(15_000);
    expect(tool.description).toContain(`longer than ${CALCULATION_DEADLINE_MS} ms`);
    expect(tool.retry.maxAttempts).toBe(1);
    const schema = z.toJSONSchema(tool.inputSchema) as { properties: Record<string, { description?: string }> };
    expect(schema.properties.expression?.description).toMatch(/expression/);
    expect(schema.properties.precision?.description).toMatch(/Decimal places/);
  });

  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2^10', 1024],
    ['-2^2', -4],
    ['10 % 3', 1],
    ['7 / 2', 3.5],
    ['0.1 + 0.2', 0.3],
    ['sqrt(16) + cbrt(27)', 7],
    ['nthRoot(32, 5)', 2],
    ['log(e)', 1],
    ['log10(1000)', 3],
    ['log2(8)', 3],
    ['log(8, 2)', 3],
    ['sin(30 deg)', 0.5],
    ['cos(pi)', -1],
    ['atan2(1, 1) * 4', Math.PI],
    ['5!', 120],
    ['factorial(20)', 2432902008176640000],
    ['combinations(52, 5)', 2598960],
    ['permutations(5, 2)', 20],
    ['gcd(12, 18) + lcm(4, 6)', 18],
    ['abs(-3) + floor(2.7) + ceil(2.1) + round(2.5)', 11],
    ['sum([1, 2, 3, 4])', 10],
    ['sum(1:100)', 5050],
    ['prod(1:5)', 120],
    ['mean([2, 4, 9])', 5],
    ['median([5, 1, 3])', 3],
    ['max(1:10) - min([4, -2, 7])', 12],
    ['std([2, 4, 4, 4, 5, 5, 7, 9])', 2.13808993529939],
    ['variance(1, 2, 3, 4)', 1.66666666666667],
    ['norm([3, 4])', 5],
    ['hypot(3, 4)', 5],
    ['2 pi', 2 * Math.PI],
    ['true ? 1 : 2', 1],
    ['re(3 + 4i) + im(3 + 4i)', 7],
    ['abs(3 + 4i)', 5],
    ['2^60', 1152921504606850000],
    ['2^53 - 1', Number.MAX_SAFE_INTEGER],
  ])('evaluates %s', async (expression, expected) => {
    const output = await calc(expression);
    expect(output.type).toBe('number');
    expect(output.result).toBeCloseTo(expected, 10);
    expect(output.expression).toBe(expression);
  });

  it('keeps safe integers exact and removes binary noise from fractions', async () => {
    expect((await calc('2^53 - 1')).result).toBe(9007199254740991);
    expect((await calc('0.1 + 0.2')).result).toBe(0.3);
    expect((await calc('sin(30 deg)')).result).toBe(0.5);
  });

  it('rounds to the requested number of decimal places', async () => {
    expect((await calc('pi', 2)).result).toBe(3.14);
    expect((await calc('2/3', 0)).result).toBe(1);
    expect((await calc('1.005', 2)).result).toBe(1.01);
    expect((await calc('5 cm to inch', 2)).result).toBe('1.97 inch');
    expect((await calc('sqrt(-2)', 3)).result).toBe('1.414i');
  });

  it('returns booleans for comparisons', async () => {
    expect(await calc('3 > 2')).toMatchObject({ result: true, type: 'boolean' });
    expect(await calc('1 < 2 < 3')).toMatchObject({ result: true, type: 'boolean' });
    expect(await calc('2 == 3')).toMatchObject({ result: false, type: 'boolean' });
    expect(await calc('isInteger(2.5)')).toMatchObject({ result: false, type: 'boolean' });
  });

  it('formats units, complex numbers, lists and radix text as strings', async () => {
    expect(await calc('5 cm to inch')).toMatchObject({ result: '1.96850393700787 inch', type: 'unit' });
    expect(await calc('100 km/h to m/s')).toMatchObject({ result: '27.7777777777778 m / s', type: 'unit' });
    expect(await calc('speedOfLight')).toMatchObject({ type: 'unit' });
    expect(await calc('sqrt(-4)')).toMatchObject({ result: '2i', type: 'complex' });
    expect(await calc('mode([1, 1, 2, 2, 3])')).toMatchObject({ result: '[1, 2]', type: 'list' });
    expect(await calc('hex(255)')).toMatchObject({ result: '0xff', type: 'text' });
  });

  describe('non-finite results', () => {
    it.each([
      ['1/0', 'Infinity'],
      ['-1/0', '-Infinity'],
      ['0/0', 'NaN'],
      ['log(0)', '-Infinity'],
      ['2^1024', 'Infinity'],
      ['factorial(171)', 'Infinity'],
      ['Infinity', 'Infinity'],
      ['(1 + 2i)^1e15', ''],
      ['(1e300 m)^2', ''],
      ['5 cm ^ 1e300', ''],
    ])('%s is a NON_FINITE_RESULT business error', async (expression, shown) => {
      const error = await expectToolError(calc(expression));
      expect(error.code).toBe('NON_FINITE_RESULT');
      expect(error.kind).toBe('business');
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('no finite value');
      expect(error.hint).toMatch(/division by zero/);
      if (shown) expect(error.details).toEqual({ value: shown });
    });
  });

  describe('rejected expressions', () => {
    it.each([
      ['1 +', /Unexpected end of expression/],
      ['2 ** 3', /Value expected/],
      ['', /empty/],
      ['  ', /empty/],
      ['x', /Unknown name "x"/],
      ['2x + 1', /Unknown name "x"/],
      ['x = 5', /Variables and function definitions/],
      ['f(x) = f(x) + 1', /Variables and function definitions/],
      ['a = 1; a + 1', /one expression at a time|Variables/],
      ['1; 2', /one expression at a time/],
      ['1\n2', /one expression at a time/],
      ['"abc"', /Text, null and undefined/],
      ['null', /Text, null and undefined/],
      ['{a: 1}', /not supported/],
      ['[1, 2, 3][2]', /not supported/],
      ['[1, 2]', /Lists are only supported/],
      ['1:3', /Lists are only supported/],
      ['sqrt([1, 4])', /Lists are only supported/],
      ['sum([[1, 2], [3, 4]])', /Lists are only supported/],
      ['sum([1:3, 5])', /Lists are only supported/],
      ['sum(([1, 2]))', /Lists are only supported/],
      ['1 m + 1 s', /Units do not match/],
      ['sqrt(1, 2)', /Too many arguments/],
      ['factorial(-1)', /non-negative/],
      ['sum(1:100000)', /more than 10000 elements/],
      ['sum(1:0:5)', /more than 10000 elements/],
      ['sum(1:Infinity)', /more than 10000 elements/],
      ['sum(1 m:5 m)', /plain numbers/],
      ['version', /Unknown name "version"/],
      ['constructor', /Unknown name "constructor"/],
      ['__proto__', /Unknown name "__proto__"/],
      ['sqrt.constructor', /not supported/],
      ['isPrime(7)', /"isPrime" is not available/],
    ])('%j is an INVALID_EXPRESSION parameter error', async (expression, message) => {
      const error = await expectToolError(calc(expression));
      expect(error.code).toBe('INVALID_EXPRESSION');
      expect(error.kind).toBe('parameter');
      expect(error.retryable).toBe(false);
      expect(error.message).toMatch(message);
    });

    it.each([
      'import({x: 1}, {override: true})',
      'createUnit("foo")',
      'evaluate("1 + 1")',
      'parse("1 + 1")',
      'compile("1")',
      'simplify("x + x")',
      'derivative("x^2", "x")',
      'resolve(1)',
      'reviver()',
      'config({number: "BigNumber"})',
      'help(sqrt)',
      'chain(3)',
      'zeros(10000, 10000)',
      'ones(1000)',
      'range(1, 1e9)',
      'map([1, 2], sqrt)',
      'random()',
    ])('refuses the dangerous or unbounded function call %s', async (expression) => {
      const error = await expectToolError(calc(expression));
      expect(error.code).toBe('INVALID_EXPRESSION');
      expect(error.message).toMatch(/is not available/);
    });

    it('leaves the shared instance unchanged after refused calls', async () => {
      await expectToolError(calc('config({number: "BigNumber"})'));
      await expectToolError(calc('import({pi: 3}, {override: true})'));
      expect((await calc('1/3')).result).toBe(0.333333333333333);
      expect((await calc('pi', 5)).result).toBe(Number(Math.PI.toFixed(5)));
    });

    it('does not let function references escape as values', async () => {
      const error = await expectToolError(calc('sqrt'));
      expect(error.message).toMatch(/Unknown name "sqrt"/);
    });

    it('caps the expression length', async () => {
      const long = `1${'+1'.repeat(MAX_EXPRESSION_LENGTH)}`;
      const error = await expectToolError(calc(long));
      expect(error.code).toBe('INVALID_EXPRESSION');
      expect(error.message).toMatch(/limit is 1000/);
      expect(tool.inputSchema.safeParse({ expression: long }).success).toBe(false);
    });

    it('reports deep nesting as an invalid expression, not a crash', async () => {
      const deep = `${'('.repeat(499)}1${')'.repeat(499)}`;
      const outcome = await calc(deep).catch((error: unknown) => error);
      if (outcome instanceof ToolError) expect(outcome.code).toBe('INVALID_EXPRESSION');
      else expect(outcome).toMatchObject({ result: 1 });
    });
  });

  it('validates precision through the schema', () => {
    expect(tool.inputSchema.safeParse({ expression: '1', precision: 16 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ expression: '1', precision: 1.5 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ expression: '1', precision: -1 }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ expression: '1', precision: 15 }).success).toBe(true);
  });

  it('only allowlists functions that exist in mathjs', () => {
    const reference = mathjs.create(mathjs.all as NonNullable<typeof mathjs.all>) as unknown as Record<string, unknown>;
    const { functions } = createExpressionCheck(createSafeMath(mathjs, { maxRangeElements: 10 }).math);
    for (const name of functions) expect(typeof reference[name], name).toBe('function');
  });

  describe('expensive expressions answer within 1 s, and never stall the event loop', () => {
    const slow = `${'gcd(1:10000)+'.repeat(76)}0`;
    /**
     * Waits until a worker is warm: a worker replaced after a deadline loads mathjs again (about
     * 0.6 s of CPU), which is the pool's cost, not the expression's.
     */
    const warm = () => calc('1');

    it.each([
      // [kind of expense, expression, expected code, expected kind]
      ['big combinations', 'combinations(100000, 50000)', 'NON_FINITE_RESULT', 'business'],
      ['big combinations', 'combinations(1e15, 5e14)', 'NON_FINITE_RESULT', 'business'],
      ['big permutations', 'permutations(1e15, 1e14)', 'NON_FINITE_RESULT', 'business'],
      ['a big factorial', 'factorial(170000)', 'NON_FINITE_RESULT', 'business'],
      ['a big factorial', 'factorial(1e15)', 'NON_FINITE_RESULT', 'business'],
      ['a big gamma', 'gamma(1e300)', 'NON_FINITE_RESULT', 'business'],
      ['a tower of powers', '2^2^2^2^2^2', 'NON_FINITE_RESULT', 'business'],
      ['a tower of 450 powers', `2${'^2'.repeat(450)}`, 'NON_FINITE_RESULT', 'business'],
      ['a complex power', '(1 + 2i)^1e300', 'NON_FINITE_RESULT', 'business'],
      ['a huge matrix', 'ones(5000, 5000)', 'INVALID_EXPRESSION', 'parameter'],
      ['a huge matrix', 'zeros(10000, 10000)', 'INVALID_EXPRESSION', 'parameter'],
      ['a huge matrix', 'identity(5000)', 'INVALID_EXPRESSION', 'parameter'],
      ['a huge range', 'sum(1:1e9)', 'INVALID_EXPRESSION', 'parameter'],
      ['a huge range', 'sum(1:0.000001:2)', 'INVALID_EXPRESSION', 'parameter'],
      ['a huge range', 'range(1, 1e9)', 'INVALID_EXPRESSION', 'parameter'],
      ['a long expression', `1${'+1'.repeat(MAX_EXPRESSION_LENGTH)}`, 'INVALID_EXPRESSION', 'parameter'],
      ['a zeta', 'zeta(1e9)', 'INVALID_EXPRESSION', 'parameter'],
      ['many gcds of long lists', slow, 'EVALUATION_LIMIT', 'limit'],
    ])('%s (%s) is a clear %s error', async (_kind, expression, code, kind) => {
      await warm();
      const started = performance.now();
      const error = await expectToolError(calc(expression));
      expect(performance.now() - started).toBeLessThan(1_000 * crowding());
      expect({ code: error.code, kind: error.kind, retryable: error.retryable }).toEqual({
        code,
        kind,
        retryable: false,
      });
      expect(error.hint).toBeTruthy();
    });

    it('says what to change when an expression is stopped at the deadline', async () => {
      const error = await expectToolError(calc(slow));
      expect(error.message).toMatch(/took longer than 750 ms to evaluate and was stopped/);
      expect(error.hint).toMatch(/smaller numbers or shorter lists/);
      expect(error.details).toEqual({ limit: 'time', limitMs: 750 });
    });

    it.each([
      ['gcd of large integers', 'gcd(9007199254740991, 9007199254740990)'],
      ['leftShift(1, 1e9)', 'leftShift(1, 1e9)'],
      ['hex(1e300)', 'hex(1e300)'],
      ['70 ranges of 10000 elements', `${'sum(1:10000)+'.repeat(70)}0`],
      ['45 combinations', `${'combinations(60,30)+'.repeat(45)}0`],
      ['990 unary minuses', `${'-'.repeat(990)}1`],
      ['499 parentheses', `${'('.repeat(499)}1${')'.repeat(499)}`],
      ['160 nested square roots', `${'sqrt('.repeat(160)}2${')'.repeat(160)}`],
      ['a list of 10000 modes', 'mode(1:10000)'],
      ['76 deviations of 10000 numbers', `${'std(1:10000)+'.repeat(76)}0`],
      ['70 lists of 10000 modes', `${'mode(1:10000)+'.repeat(70)}0`],
    ])(
      '%s answers, with a result or an error (the deadline stops it; a hang fails on the test timeout)',
      async (_label, expression) => {
        await warm();
        await calc(expression).catch((error: unknown) => {
          if (!(error instanceof ToolError)) throw error;
        });
      },
      // A hang, not a slow machine: the 750 ms deadline is far below it, even crowded.
      30_000,
    );

    it('keeps timers firing and other calls answering while an expression runs into its deadline', async () => {
      const pool = sharedCalculatorPool();
      pool.warm();
      while (pool.stats().ready < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      let ticks = 0;
      const timer = setInterval(() => {
        ticks += 1;
      }, 10);
      try {
        let expensiveSettled = false;
        const expensive = expectToolError(calc(slow)).finally(() => {
          expensiveSettled = true;
        });
        expect((await calc('2 + 2')).result).toBe(4);
        // Answered while the expensive one still ran: it did not wait behind it.
        expect(expensiveSettled).toBe(false);
        expect((await expensive).code).toBe('EVALUATION_LIMIT');
      } finally {
        clearInterval(timer);
      }
      // About 75 at rest; a loop blocked by the evaluation would tick once at most.
      expect(ticks).toBeGreaterThanOrEqual(5);
    });

    it('stops the evaluation when the call is cancelled, and the calculator keeps working', async () => {
      const pool = createCalculatorPool({ size: 1 });
      try {
        const ownTool = createCalculatorTool({ pool });
        await ownTool.execute({ expression: 'sqrt(1)' }, ctx);
        const controller = new AbortController();
        const running = ownTool.execute({ expression: slow }, createTestContext({ signal: controller.signal }));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = performance.now();
        controller.abort(new Error('cancelled by a person'));
        await expect(running).rejects.toThrow('cancelled by a person');
        expect(performance.now() - started).toBeLessThan(100 * crowding());
        expect(pool.stats()).toMatchObject({ started: 2, busy: 0 });
        expect((await ownTool.execute({ expression: 'sqrt(36) * 7' }, ctx)).result).toBe(42);
      } finally {
        await pool.close();
      }
      // Two workers start here (the cancelled one is replaced): seconds each on a crowded machine.
    }, 60_000);
  });

  it('never throws anything but a ToolError, whatever the input', async () => {
    const token = fc.constantFrom(
      '1',
      '2.5',
      '1e308',
      '-',
      '+',
      '*',
      '/',
      '^',
      '!',
      '%',
      '(',
      ')',
      '[',
      ']',
      ',',
      ':',
      ';',
      '=',
      '?',
      ' ',
      'pi',
      'e',
      'i',
      'x',
      'cm',
      'to',
      'inch',
      'sqrt(',
      'sum(',
      'mean(',
      'factorial(',
      'combinations(',
      'import(',
      'evaluate(',
      '"',
      '.',
      'constructor',
      '__proto__',
      '\n',
      'deg',
      'Infinity',
      '1:5',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { maxLength: 30 }), async (tokens) => {
        const expression = tokens.join('');
        try {
          const output = await calc(expression);
          expect(['number', 'boolean', 'complex', 'unit', 'list', 'text']).toContain(output.type);
          if (output.type === 'number') expect(Number.isFinite(output.result)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
