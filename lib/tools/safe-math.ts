import { all, create } from 'mathjs';

/** Largest list an `a:b` range may produce. */
export const MAX_RANGE_ELEMENTS = 10_000;

/** The functions the mathjs security guide says to disable, and the rest that parse or mutate. */
// biome-ignore format: a word list reads best packed
const DISABLED_FUNCTIONS = [
  'import', 'createUnit', 'evaluate', 'parse', 'simplify', 'simplifyConstant', 'simplifyCore', 'derivative',
  'resolve', 'reviver', 'compile', 'rationalize', 'chain', 'help', 'parser', 'leafCount', 'symbolicEqual',
];

const guarded = createSafeMath();

/**
 * The calculator's own mathjs instance, created once with its guards installed. Never handed
 * to anything that might reconfigure it: every call of the tool shares it.
 */
export const safeMath = guarded.math;

/** mathjs `parse`, kept from before the guards disabled it (an expression must not reach it). */
export const parseExpression: (typeof guarded.math)['parse'] = guarded.parse;

function createSafeMath() {
  // `all` is typed as possibly undefined; it never is at runtime.
  const math = create(all as NonNullable<typeof all>);
  const parse = math.parse;
  installGuards(math);
  return { math, parse };
}

/**
 * Disables the functions the mathjs security guide names (the allowlist already keeps them out
 * of reach; this keeps them out even if the allowlist grows carelessly) and caps the ones whose
 * cost grows with the value of their arguments. `import` disables itself, so one call does all.
 */
function installGuards(math: ReturnType<typeof create>): void {
  const expressionRange = (math.expression as unknown as { mathWithTransform: Record<string, unknown> })
    .mathWithTransform.range as (...args: unknown[]) => unknown;
  const combinations = math.combinations as (n: unknown, k: unknown) => unknown;
  const permutations = math.permutations as (...args: unknown[]) => unknown;
  const disabled = Object.fromEntries(
    DISABLED_FUNCTIONS.map((name) => [
      name,
      () => {
        throw new Error(`Function ${name} is disabled`);
      },
    ]),
  );
  math.import(
    {
      ...disabled,
      range(...args: unknown[]) {
        checkRangeSize(args);
        return expressionRange(...args);
      },
      // Both loop over k; past these bounds the result overflows a double anyway.
      combinations(n: unknown, k: unknown) {
        const pair = integerPair(n, k);
        if (pair && Math.min(pair.k, pair.n - pair.k) > 2000) return Number.POSITIVE_INFINITY;
        return combinations(n, k);
      },
      permutations(...args: unknown[]) {
        const pair = args.length === 2 ? integerPair(args[0], args[1]) : null;
        if (pair && pair.k > 170) return Number.POSITIVE_INFINITY;
        return permutations(...args);
      },
    },
    { override: true },
  );
}

/** `n` and `k` when they are valid arguments of combinations(n, k): integers, n >= k >= 0. */
function integerPair(n: unknown, k: unknown): { n: number; k: number } | null {
  if (typeof n !== 'number' || typeof k !== 'number' || !Number.isInteger(n) || !Number.isInteger(k)) return null;
  return k >= 0 && n >= k ? { n, k } : null;
}

function checkRangeSize(args: unknown[]): void {
  const [start, end, step = 1] = args;
  if (typeof start !== 'number' || typeof end !== 'number' || typeof step !== 'number') {
    throw new Error('Ranges (a:b or a:step:b) need plain numbers');
  }
  const size = step === 0 ? Number.POSITIVE_INFINITY : Math.floor((end - start) / step) + 1;
  if (!(size <= MAX_RANGE_ELEMENTS)) {
    throw new Error(`The range ${start}:${end} has more than ${MAX_RANGE_ELEMENTS} elements`);
  }
}
