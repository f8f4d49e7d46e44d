import type * as MathJs from 'mathjs';

/** Largest list an `a:b` range may produce. */
export const MAX_RANGE_ELEMENTS = 10_000;

export type MathInstance = ReturnType<typeof MathJs.create>;

export interface SafeMath {
  /** The calculator's own mathjs instance, with its guards installed. */
  math: MathInstance;
  /** mathjs `parse`, kept from before the guards disabled it (an expression must not reach it). */
  parse: MathInstance['parse'];
}

/**
 * Creates the calculator's mathjs instance with its guards installed: the functions the mathjs
 * security guide names are disabled (the allowlist already keeps them out of reach; this keeps
 * them out even if the allowlist grows carelessly), and the ones whose cost grows with the value
 * of their arguments are capped, so that they answer at once instead of running into the worker's
 * deadline. `import` disables itself, so one call does all.
 *
 * Self-contained: the calculator's worker runs this function from its source text, so it uses
 * nothing but its parameters and JavaScript's globals (no imports, no module constants).
 * @example const { math, parse } = createSafeMath(await import('mathjs'), { maxRangeElements: 10_000 });
 */
export function createSafeMath(mathjs: typeof MathJs, limits: { maxRangeElements: number }): SafeMath {
  // `all` is typed as possibly undefined; it never is at runtime.
  const math = mathjs.create(mathjs.all as NonNullable<typeof mathjs.all>);
  const parse = math.parse;
  // biome-ignore format: a word list reads best packed
  const disabledNames = [
    'import', 'createUnit', 'evaluate', 'parse', 'simplify', 'simplifyConstant', 'simplifyCore', 'derivative',
    'resolve', 'reviver', 'compile', 'rationalize', 'chain', 'help', 'parser', 'leafCount', 'symbolicEqual',
  ];
  const expressionRange = (math.expression as unknown as { mathWithTransform: Record<string, unknown> })
    .mathWithTransform.range as (...args: unknown[]) => unknown;
  const combinations = math.combinations as (n: unknown, k: unknown) => unknown;
  const permutations = math.permutations as (...args: unknown[]) => unknown;

  /** `n` and `k` when they are valid arguments of combinations(n, k): integers, n >= k >= 0. */
  const integerPair = (n: unknown, k: unknown): { n: number; k: number } | null => {
    if (typeof n !== 'number' || typeof k !== 'number' || !Number.isInteger(n) || !Number.isInteger(k)) return null;
    return k >= 0 && n >= k ? { n, k } : null;
  };
  const checkRangeSize = (args: unknown[]): void => {
    const [start, end, step = 1] = args;
    if (typeof start !== 'number' || typeof end !== 'number' || typeof step !== 'number') {
      throw new Error('Ranges (a:b or a:step:b) need plain numbers');
    }
    const size = step === 0 ? Number.POSITIVE_INFINITY : Math.floor((end - start) / step) + 1;
    if (!(size <= limits.maxRangeElements)) {
      throw new Error(`The range ${start}:${end} has more than ${limits.maxRangeElements} elements`);
    }
  };

  const disabled = Object.fromEntries(
    disabledNames.map((name) => [
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
  return { math, parse };
}
