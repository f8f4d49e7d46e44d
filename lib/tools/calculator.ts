import { z } from 'zod';
import { defineTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import type { Tool } from '../executor/types';
import { checkExpression, invalidExpression } from './check-expression';
import { MAX_RANGE_ELEMENTS, safeMath as math, parseExpression } from './safe-math';

export const MAX_EXPRESSION_LENGTH = 1000;

const inputSchema = z.object({
  expression: z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH)
    .describe('One math expression, e.g. "sqrt(2) * (3 + 4)^2", "sum([1, 2, 3]) / 3" or "5 cm to inch".'),
  precision: z
    .number()
    .int()
    .min(0)
    .max(15)
    .optional()
    .describe('Decimal places to round the result to. Omit for full precision (15 significant digits).'),
});

export type CalculatorInput = z.infer<typeof inputSchema>;

export interface CalculatorOutput {
  expression: string;
  /** Numbers and booleans as JSON values; complex numbers, units and lists as formatted text. */
  result: number | string | boolean;
  type: 'number' | 'boolean' | 'complex' | 'unit' | 'list' | 'text';
}

/**
 * The `calculator` tool: evaluates one expression with mathjs, never with `eval`.
 *
 * 1. The expression is parsed (not evaluated) and its tree checked by `checkExpression`:
 *    numbers, operators, constants, units, listed functions; lists only as arguments of
 *    functions that reduce them. No variables, function definitions, strings or property access.
 * 2. The mathjs instance also has its dangerous functions disabled (defence in depth) and its
 *    expensive ones capped (`a:b` ranges, combinations, permutations), because evaluation is
 *    synchronous: a timeout cannot interrupt it, so every allowed expression must be cheap.
 * 3. The value is shaped for a model; Infinity and NaN become a `NON_FINITE_RESULT` error,
 *    which says more to a model than the string "Infinity" would.
 * @example await createCalculatorTool().execute({ expression: '2^10' }, ctx) // { result: 1024, ... }
 */
export function createCalculatorTool(): Tool<CalculatorInput, CalculatorOutput> {
  return defineTool({
    name: 'calculator',
    description: [
      'Evaluate one math expression and return the result. Use it instead of doing arithmetic in your head.',
      'Supports + - * / ^ % and parentheses, comparisons, constants (pi, e, i, phi),',
      'functions such as sqrt, cbrt, nthRoot, exp, log (natural), log10, log2, sin/cos/tan (radians, or "30 deg"),',
      'factorial, combinations, permutations, round, floor, ceil, abs, gcd, lcm, hex,',
      'lists for sum, prod, mean, median, mode, min, max, std, variance (e.g. "mean([2, 4, 9])" or "sum(1:100)"),',
      'and unit conversion (e.g. "5 cm to inch", "100 km/h to m/s").',
      'Variables, function definitions and several expressions at once are not supported.',
      `At most ${MAX_EXPRESSION_LENGTH} characters; lists from a:b at most ${MAX_RANGE_ELEMENTS} elements.`,
    ].join(' '),
    inputSchema,
    sideEffect: 'none',
    timeoutMs: 2_000,
    // Deterministic: the same expression fails the same way every time.
    retry: { maxAttempts: 1 },
    circuitBreaker: false,
    async execute({ expression, precision }) {
      return evaluateExpression(expression, precision);
    },
  });
}

/** Checks, evaluates and shapes one expression; throws ToolError for anything wrong. */
export function evaluateExpression(expression: string, precision?: number): CalculatorOutput {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw invalidExpression(
      `The expression is ${expression.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}.`,
    );
  }
  if (expression.trim() === '') throw invalidExpression('The expression is empty.');
  let value: unknown;
  try {
    const node = parseExpression(expression);
    checkExpression(node);
    value = node.compile().evaluate();
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw invalidExpression(`Could not evaluate "${expression}": ${describeMathError(error)}`, error);
  }
  return shapeResult(expression, value, precision);
}

function shapeResult(expression: string, value: unknown, precision: number | undefined): CalculatorOutput {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw nonFinite(expression, String(value));
    return { expression, result: roundNumber(value, precision), type: 'number' };
  }
  if (typeof value === 'boolean') return { expression, result: value, type: 'boolean' };
  if (typeof value === 'string') return { expression, result: value, type: 'text' };
  if (math.isComplex(value)) {
    if (!Number.isFinite(value.re) || !Number.isFinite(value.im)) throw nonFinite(expression, value.toString());
    return { expression, result: formatValue(value, precision), type: 'complex' };
  }
  if (math.isUnit(value)) {
    // The amount as shown (in the result's own unit), not the stored SI value: 5 cm ^ 1e300
    // stores 0 but shows NaN.
    const shown = value.value === null ? 0 : value.toNumeric();
    const parts = math.isComplex(shown) ? [shown.re, shown.im] : [Number(shown)];
    if (!parts.every(Number.isFinite)) throw nonFinite(expression, value.toString());
    return { expression, result: formatValue(value, precision), type: 'unit' };
  }
  if (math.isMatrix(value) || Array.isArray(value)) {
    return { expression, result: formatValue(value, precision), type: 'list' };
  }
  throw invalidExpression(`"${expression}" does not produce a number.`);
}

function roundNumber(value: number, precision: number | undefined): number {
  if (precision !== undefined) return math.round(value, precision);
  // Integers that doubles hold exactly stay exact; the rest lose binary noise (0.1 + 0.2).
  if (Number.isSafeInteger(value)) return value;
  return Number(value.toPrecision(15));
}

function formatValue(value: unknown, precision: number | undefined): string {
  return precision === undefined
    ? math.format(value, { precision: 15 })
    : math.format(value, { notation: 'fixed', precision });
}

function describeMathError(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'the expression is nested too deeply';
  return error instanceof Error ? error.message : String(error);
}

function nonFinite(expression: string, shown: string): ToolError {
  return ToolError.business('NON_FINITE_RESULT', `"${expression}" has no finite value (it evaluates to ${shown}).`, {
    hint: 'Check for division by zero, logarithms of zero or results too large for a 64-bit float (above about 1.8e308).',
    details: { value: shown },
  });
}
