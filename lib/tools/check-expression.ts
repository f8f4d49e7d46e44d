import type { MathNode } from 'mathjs';
import type { MathInstance } from './safe-math';

export interface ExpressionCheck {
  /** Throws an Error whose `code` is INVALID_EXPRESSION when the tree uses anything not allowed. */
  check(root: MathNode): void;
  /** Every function an expression may call. */
  functions: ReadonlySet<string>;
}

/**
 * Creates the check of a parsed expression against the calculator's allowlist.
 *
 * Allowed: numbers and booleans, operators, parentheses, conditionals, comparisons, constants
 * and units by name, allowlisted functions, and lists only as direct arguments of the functions
 * that reduce them. Refused: variables and function definitions (with them, `[A, A]` doubles a
 * list per assignment; `f(n) = f(n-1) + f(n-1)` is exponential), several statements, strings,
 * objects, indexing and property access. What remains costs about as much as it is long; the
 * worker's deadline stops the rest.
 *
 * Self-contained: the calculator's worker runs this function from its source text, so it uses
 * nothing but its parameter and JavaScript's globals (no imports, no module constants).
 * @example createExpressionCheck(math).check(parse('sum([1, 2]) * pi')) // passes
 */
export function createExpressionCheck(math: MathInstance): ExpressionCheck {
  /** Functions a model may call on numbers, complex numbers and units. */
  // biome-ignore format: a word list reads best packed
  const scalarFunctions = [
    'abs', 'add', 'subtract', 'multiply', 'divide', 'unaryMinus', 'unaryPlus', 'mod', 'pow', 'sqrt', 'cbrt',
    'nthRoot', 'exp', 'expm1', 'log', 'log10', 'log1p', 'log2', 'ceil', 'floor', 'fix', 'round', 'sign', 'square',
    'cube', 'xgcd', 'invmod', 'sin', 'cos', 'tan', 'sec', 'csc', 'cot', 'asin', 'acos', 'atan', 'atan2', 'asec',
    'acsc', 'acot', 'sinh', 'cosh', 'tanh', 'sech', 'csch', 'coth', 'asinh', 'acosh', 'atanh', 'asech', 'acsch',
    'acoth', 'factorial', 'gamma', 'lgamma', 'combinations', 'permutations', 'erf', 're', 'im', 'arg', 'conj',
    'complex', 'isInteger', 'isNaN', 'isNegative', 'isPositive', 'isZero', 'compare', 'equal', 'unequal', 'larger',
    'largerEq', 'smaller', 'smallerEq', 'and', 'or', 'not', 'xor', 'bitAnd', 'bitOr', 'bitXor', 'bitNot', 'leftShift',
    'rightArithShift', 'rightLogShift', 'bin', 'oct', 'hex', 'to',
  ];
  /** Functions that may also take a list (`[1, 2, 3]` or `1:10`) and reduce it. */
  // biome-ignore format: a word list reads best packed
  const listFunctions = [
    'sum', 'prod', 'mean', 'median', 'mode', 'min', 'max', 'std', 'variance', 'mad', 'norm', 'gcd', 'lcm', 'hypot',
  ];
  const functions: ReadonlySet<string> = new Set([...scalarFunctions, ...listFunctions]);
  const listFunctionSet: ReadonlySet<string> = new Set(listFunctions);
  const namespace = math as unknown as Record<string, unknown>;

  const invalid = (message: string) => Object.assign(new Error(message), { code: 'INVALID_EXPRESSION' });
  const isAllowedSymbol = (name: string): boolean => {
    if (math.Unit.isValuelessUnit(name)) return true;
    if (!Object.hasOwn(namespace, name)) return false;
    const value = namespace[name];
    return typeof value === 'number' || math.isComplex(value) || math.isUnit(value);
  };

  const check = (root: MathNode): void => {
    root.traverse((node, path, parent) => {
      const name = (node as { name?: string }).name ?? '';
      switch (node.type) {
        case 'ConstantNode': {
          const { value } = node as unknown as { value: unknown };
          if (typeof value !== 'number' && typeof value !== 'boolean') {
            throw invalid('Text, null and undefined values are not supported; use numbers.');
          }
          return;
        }
        case 'SymbolNode':
          if (parent?.type === 'FunctionNode' && path === 'fn') return;
          if (!isAllowedSymbol(name)) {
            throw invalid(
              `Unknown name "${name}": variables are not supported. Use numbers, constants (pi, e, i) or units (cm, kg, deg).`,
            );
          }
          return;
        case 'FunctionNode': {
          const fn = (node as unknown as { fn: MathNode }).fn;
          const fnName = (fn as { name?: string }).name;
          if (fn.type !== 'SymbolNode' || !fnName || !functions.has(fnName)) {
            throw invalid(`The function "${fnName ?? fn.toString()}" is not available in this calculator.`);
          }
          return;
        }
        case 'ArrayNode':
        case 'RangeNode': {
          const fnName =
            parent?.type === 'FunctionNode' ? (parent as unknown as { fn: { name?: string } }).fn.name : '';
          if (!fnName || !listFunctionSet.has(fnName) || !path.startsWith('args')) {
            throw invalid(
              `Lists are only supported as arguments of ${listFunctions.join(', ')}, e.g. "sum([1, 2, 3])".`,
            );
          }
          return;
        }
        case 'OperatorNode':
        case 'ParenthesisNode':
        case 'ConditionalNode':
        case 'RelationalNode':
          return;
        case 'AssignmentNode':
        case 'FunctionAssignmentNode':
          throw invalid(
            'Variables and function definitions are not supported; write one expression with the numbers in it.',
          );
        case 'BlockNode':
          throw invalid('Only one expression at a time is supported (no ";" or line breaks between expressions).');
        default:
          throw invalid(
            `${node.type.replace(/Node$/, '')} expressions (indexing, objects, property access) are not supported.`,
          );
      }
    });
  };
  return { check, functions };
}
