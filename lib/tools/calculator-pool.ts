import { createExpressionCheck } from './check-expression';
import { type Calculation, type CalculationInput, createEvaluator } from './evaluate-expression';
import { createSafeMath, MAX_RANGE_ELEMENTS } from './safe-math';
import { createWorkerPool, moduleFolders, type WorkerPool } from './worker-pool';

/** Longest expression the calculator reads. */
export const MAX_EXPRESSION_LENGTH = 1000;

/**
 * How long one expression may evaluate before its worker is terminated. Under the 1 s the
 * calculator promises, with room for the answer to come back.
 */
export const CALCULATION_DEADLINE_MS = 750;

/** Heap for one worker: mathjs needs about 40 MB; the rest bounds what one expression may build. */
const WORKER_HEAP_MB = 256;

export type CalculatorPool = WorkerPool<CalculationInput, Calculation>;

/**
 * The program each calculator worker runs: the guarded mathjs instance, the allowlist check and
 * the evaluator, each built from the source text of its (self-contained) factory. Text rather
 * than a worker file, because no file path survives every way this code runs: TypeScript under
 * vitest, Next's server chunks, and an esbuild bundle.
 */
export function calculatorHandlerSource(): string {
  return `(() => {
  const safeMath = (${createSafeMath.toString()})(require('mathjs'), ${JSON.stringify({ maxRangeElements: MAX_RANGE_ELEMENTS })});
  const check = (${createExpressionCheck.toString()})(safeMath.math);
  return (${createEvaluator.toString()})(safeMath, check, ${JSON.stringify({ maxExpressionLength: MAX_EXPRESSION_LENGTH })});
})()`;
}

/**
 * Creates the calculator's workers: two by default, so one expensive expression leaves the other
 * free for everyone else; each expression stopped at `deadlineMs`.
 * @example const pool = createCalculatorPool(); await pool.run({ expression: '2 + 2' }); await pool.close();
 */
export function createCalculatorPool(options: { size?: number; deadlineMs?: number } = {}): CalculatorPool {
  return createWorkerPool({
    handler: calculatorHandlerSource(),
    deadlineMs: options.deadlineMs ?? CALCULATION_DEADLINE_MS,
    size: options.size ?? 2,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    resolvePaths: moduleFolders(),
  });
}

let shared: CalculatorPool | undefined;

/** The pool calculator tools use when none is handed to them; its idle workers never hold the process open. */
export function sharedCalculatorPool(): CalculatorPool {
  shared ??= createCalculatorPool();
  return shared;
}
