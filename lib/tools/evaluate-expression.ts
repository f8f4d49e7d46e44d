import type { ExpressionCheck } from './check-expression';
import type { SafeMath } from './safe-math';

export interface CalculatorOutput {
  expression: string;
  /** Numbers and booleans as JSON values; complex numbers, units and lists as formatted text. */
  result: number | string | boolean;
  type: 'number' | 'boolean' | 'complex' | 'unit' | 'list' | 'text';
}

/** Why an expression has no result, as data: it crosses from the worker by structured clone. */
export interface CalculationError {
  code: 'INVALID_EXPRESSION' | 'NON_FINITE_RESULT';
  message: string;
  /** NON_FINITE_RESULT: the value as shown (Infinity, NaN...). */
  value?: string;
}

export type Calculation = { ok: true; output: CalculatorOutput } | { ok: false; error: CalculationError };

export interface CalculationInput {
  expression: string;
  precision?: number;
}

/**
 * Creates the function that checks, evaluates and shapes one expression, answering with data,
 * never throwing.
 * 1. The length is checked, the expression parsed (not evaluated) and its tree checked.
 * 2. It is compiled and evaluated on the guarded mathjs instance.
 * 3. The value is shaped for a model; Infinity and NaN become NON_FINITE_RESULT, which says more
 *    to a model than the string "Infinity" would.
 *
 * Self-contained: the calculator's worker runs this function from its source text, so it uses
 * nothing but its parameters and JavaScript's globals (no imports, no module constants).
 * @example createEvaluator(safeMath, check, { maxExpressionLength: 1000 })({ expression: '2^10' })
 */
export function createEvaluator(
  { math, parse }: SafeMath,
  { check }: Pick<ExpressionCheck, 'check'>,
  limits: { maxExpressionLength: number },
): (input: CalculationInput) => Calculation {
  const invalid = (message: string): Calculation => ({ ok: false, error: { code: 'INVALID_EXPRESSION', message } });
  const nonFinite = (expression: string, shown: string): Calculation => ({
    ok: false,
    error: {
      code: 'NON_FINITE_RESULT',
      message: `"${expression}" has no finite value (it evaluates to ${shown}).`,
      value: shown,
    },
  });
  const describeError = (error: unknown): string => {
    if (error instanceof RangeError && /call stack/i.test(error.message)) return 'the expression is nested too deeply';
    return error instanceof Error ? error.message : String(error);
  };
  const roundNumber = (value: number, precision: number | undefined): number => {
    if (precision !== undefined) return math.round(value, precision);
    // Integers that doubles hold exactly stay exact; the rest lose binary noise (0.1 + 0.2).
    if (Number.isSafeInteger(value)) return value;
    return Number(value.toPrecision(15));
  };
  const format = (value: unknown, precision: number | undefined): string =>
    precision === undefined
      ? math.format(value, { precision: 15 })
      : math.format(value, { notation: 'fixed', precision });

  const shape = (expression: string, value: unknown, precision: number | undefined): Calculation => {
    const ok = (result: CalculatorOutput['result'], type: CalculatorOutput['type']): Calculation => ({
      ok: true,
      output: { expression, result, type },
    });
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return nonFinite(expression, String(value));
      return ok(roundNumber(value, precision), 'number');
    }
    if (typeof value === 'boolean') return ok(value, 'boolean');
    if (typeof value === 'string') return ok(value, 'text');
    if (math.isComplex(value)) {
      if (!Number.isFinite(value.re) || !Number.isFinite(value.im)) return nonFinite(expression, value.toString());
      return ok(format(value, precision), 'complex');
    }
    if (math.isUnit(value)) {
      // The amount as shown (in the result's own unit), not the stored SI value: 5 cm ^ 1e300
      // stores 0 but shows NaN.
      const shown = value.value === null ? 0 : value.toNumeric();
      const parts = math.isComplex(shown) ? [shown.re, shown.im] : [Number(shown)];
      if (!parts.every(Number.isFinite)) return nonFinite(expression, value.toString());
      return ok(format(value, precision), 'unit');
    }
    if (math.isMatrix(value) || Array.isArray(value)) return ok(format(value, precision), 'list');
    return invalid(`"${expression}" does not produce a number.`);
  };

  return ({ expression, precision }) => {
    if (expression.length > limits.maxExpressionLength) {
      return invalid(
        `The expression is ${expression.length} characters long; the limit is ${limits.maxExpressionLength}.`,
      );
    }
    if (expression.trim() === '') return invalid('The expression is empty.');
    let value: unknown;
    try {
      const node = parse(expression);
      check(node);
      value = node.compile().evaluate();
    } catch (error) {
      if ((error as { code?: unknown }).code === 'INVALID_EXPRESSION') return invalid((error as Error).message);
      return invalid(`Could not evaluate "${expression}": ${describeError(error)}`);
    }
    return shape(expression, value, precision);
  };
}
