import { z } from 'zod';
import { defineTool, type ZodTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import {
  CALCULATION_DEADLINE_MS,
  type CalculatorPool,
  MAX_EXPRESSION_LENGTH,
  sharedCalculatorPool,
} from './calculator-pool';
import type { CalculationError, CalculatorOutput } from './evaluate-expression';
import { evaluatePlainArithmetic } from './plain-arithmetic';
import { calculatorDescriber } from './previews';
import { MAX_RANGE_ELEMENTS } from './safe-math';
import type { PoolOutcome } from './worker-pool';

export { MAX_EXPRESSION_LENGTH } from './calculator-pool';
export type { CalculatorOutput } from './evaluate-expression';

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

export interface CalculatorToolOptions {
  /** The workers that evaluate; default: one pool shared by every calculator tool of the process. */
  pool?: CalculatorPool;
}

/**
 * The `calculator` tool: evaluates one expression with mathjs, never with `eval`, in a worker.
 *
 * 1. Plain arithmetic (numbers, + - * /, parentheses; `plain-arithmetic.ts`) is evaluated here at
 *    once: bounded and linear, it cannot stall anything, and it skips the trip to a worker.
 *    Everything else goes to a warm worker (`calculator-pool.ts`): evaluation is synchronous and
 *    some expressions run for minutes, which on the event loop would stall every request.
 * 2. There it is parsed and its tree checked against an allowlist (`check-expression.ts`), then
 *    evaluated on a mathjs instance with its dangerous functions disabled and its expensive ones
 *    capped (`safe-math.ts`), and shaped for a model (`evaluate-expression.ts`).
 * 3. An expression still running at the deadline has its worker terminated (and replaced) and
 *    answers EVALUATION_LIMIT; a cancelled call terminates its worker the same way.
 * @example await createCalculatorTool().execute({ expression: '2^10' }, ctx) // { result: 1024, ... }
 */
export function createCalculatorTool(options: CalculatorToolOptions = {}): ZodTool<CalculatorInput, CalculatorOutput> {
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
      `At most ${MAX_EXPRESSION_LENGTH} characters; lists from a:b at most ${MAX_RANGE_ELEMENTS} elements;`,
      `an expression that takes longer than ${CALCULATION_DEADLINE_MS} ms to evaluate is stopped.`,
    ].join(' '),
    inputSchema,
    sideEffect: 'none',
    describe: calculatorDescriber,
    // Evaluation itself is stopped at CALCULATION_DEADLINE_MS; this bounds the wait for a worker,
    // which after a start or a replacement loads mathjs: about 0.6 s of CPU, measured at 7 s on a
    // two-core machine at load 13, so a cold start on a busy machine is not a timeout.
    timeoutMs: 15_000,
    // Deterministic: the same expression fails the same way every time.
    retry: { maxAttempts: 1 },
    circuitBreaker: false,
    execute({ expression, precision }, ctx) {
      // Plain arithmetic (most of what models ask) is answered here, synchronously: see plain-arithmetic.ts.
      const plain = precision === undefined ? evaluatePlainArithmetic(expression) : null;
      if (plain) return plain;
      return evaluateInWorker(options.pool ?? sharedCalculatorPool(), { expression, precision }, ctx.signal);
    },
  });
}

async function evaluateInWorker(pool: CalculatorPool, input: CalculatorInput, signal: AbortSignal) {
  const outcome = await pool.run(input, { signal });
  if (!outcome.ok) throw poolError(outcome, input.expression, signal);
  if (!outcome.value.ok) throw calculationError(outcome.value.error);
  return outcome.value.output;
}

function calculationError(error: CalculationError): ToolError {
  if (error.code === 'NON_FINITE_RESULT') {
    return ToolError.business(error.code, error.message, {
      hint: 'Check for division by zero, logarithms of zero or results too large for a 64-bit float (above about 1.8e308).',
      details: { value: error.value },
    });
  }
  return ToolError.parameter(error.code, error.message, {
    hint: 'Fix the expression: numbers, + - * / ^, parentheses, listed functions, constants pi and e, units.',
  });
}

/** Why the workers gave no answer, said so that a model knows whether to change the expression or wait. */
function poolError(outcome: Extract<PoolOutcome<unknown>, { ok: false }>, expression: string, signal: AbortSignal) {
  switch (outcome.reason) {
    case 'deadline':
      return new ToolError({
        code: 'EVALUATION_LIMIT',
        kind: 'limit',
        message: `"${expression}" took longer than ${CALCULATION_DEADLINE_MS} ms to evaluate and was stopped.`,
        hint: 'The same expression will be stopped again: use smaller numbers or shorter lists, or split it into several calculations.',
        details: { limit: 'time', limitMs: CALCULATION_DEADLINE_MS },
      });
    case 'crashed':
      if (!/memory/.test(outcome.message)) return unavailable(expression, outcome.message);
      return new ToolError({
        code: 'EVALUATION_LIMIT',
        kind: 'limit',
        message: `"${expression}" needed more memory than the calculator allows and was stopped.`,
        hint: 'The same expression will be stopped again: use smaller numbers or shorter lists, or split it into several calculations.',
        details: { limit: 'memory' },
      });
    case 'aborted':
      // The attempt already ended (timeout or cancel); this only says why.
      return signal.reason ?? new Error(outcome.message);
    case 'busy':
      return ToolError.temporary('CALCULATOR_BUSY', `The calculator is busy: ${outcome.message}`, {
        hint: 'Try again in a moment.',
      });
    default:
      return unavailable(expression, outcome.message);
  }
}

function unavailable(expression: string, why: string): ToolError {
  return new ToolError({
    code: 'CALCULATOR_UNAVAILABLE',
    kind: 'internal',
    message: `The calculator could not evaluate "${expression}": ${why}`,
    retryable: false,
  });
}
