import type { MathNode } from 'mathjs';
import { ToolError } from '../executor/errors';
import { safeMath } from './safe-math';

/** Functions a model may call on numbers, complex numbers and units. */
// biome-ignore format: a word list reads best packed
const SCALAR_FUNCTIONS = [
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
const LIST_FUNCTIONS = [
  'sum', 'prod', 'mean', 'median', 'mode', 'min', 'max', 'std', 'variance', 'mad', 'norm', 'gcd', 'lcm', 'hypot',
];

/** Every function an expression may call. */
export const CALCULATOR_FUNCTIONS: ReadonlySet<string> = new Set([...SCALAR_FUNCTIONS, ...LIST_FUNCTIONS]);
const LIST_FUNCTION_SET: ReadonlySet<string> = new Set(LIST_FUNCTIONS);
const namespace = safeMath as unknown as Record<string, unknown>;

/**
 * Checks a parsed expression against the calculator's allowlist, throwing INVALID_EXPRESSION.
 *
 * Allowed: numbers and booleans, operators, parentheses, conditionals, comparisons, constants
 * and units by name, allowlisted functions, and lists only as direct arguments of the functions
 * that reduce them. Refused: variables and function definitions (with them, `[A, A]` doubles a
 * list per assignment; `f(n) = f(n-1) + f(n-1)` is exponential), several statements, strings,
 * objects, indexing and property access. What remains costs about as much as it is long, which
 * matters because evaluation is synchronous and no timeout can interrupt it.
 * @example checkExpression(parseExpression('sum([1, 2]) * pi')) // passes
 */
export function checkExpression(root: MathNode): void {
  root.traverse((node, path, parent) => {
    const name = (node as { name?: string }).name ?? '';
    switch (node.type) {
      case 'ConstantNode': {
        const { value } = node as unknown as { value: unknown };
        if (typeof value !== 'number' && typeof value !== 'boolean') {
          throw invalidExpression('Text, null and undefined values are not supported; use numbers.');
        }
        return;
      }
      case 'SymbolNode':
        if (parent?.type === 'FunctionNode' && path === 'fn') return;
        if (!isAllowedSymbol(name)) {
          throw invalidExpression(
            `Unknown name "${name}": variables are not supported. Use numbers, constants (pi, e, i) or units (cm, kg, deg).`,
          );
        }
        return;
      case 'FunctionNode': {
        const fn = (node as unknown as { fn: MathNode }).fn;
        const fnName = (fn as { name?: string }).name;
        if (fn.type !== 'SymbolNode' || !fnName || !CALCULATOR_FUNCTIONS.has(fnName)) {
          throw invalidExpression(`The function "${fnName ?? fn.toString()}" is not available in this calculator.`);
        }
        return;
      }
      case 'ArrayNode':
      case 'RangeNode': {
        const fnName = parent?.type === 'FunctionNode' ? (parent as unknown as { fn: { name?: string } }).fn.name : '';
        if (!fnName || !LIST_FUNCTION_SET.has(fnName) || !path.startsWith('args')) {
          throw invalidExpression(
            `Lists are only supported as arguments of ${LIST_FUNCTIONS.join(', ')}, e.g. "sum([1, 2, 3])".`,
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
        throw invalidExpression(
          'Variables and function definitions are not supported; write one expression with the numbers in it.',
        );
      case 'BlockNode':
        throw invalidExpression(
          'Only one expression at a time is supported (no ";" or line breaks between expressions).',
        );
      default:
        throw invalidExpression(
          `${node.type.replace(/Node$/, '')} expressions (indexing, objects, property access) are not supported.`,
        );
    }
  });
}

function isAllowedSymbol(name: string): boolean {
  if (safeMath.Unit.isValuelessUnit(name)) return true;
  if (!Object.hasOwn(namespace, name)) return false;
  const value = namespace[name];
  return typeof value === 'number' || safeMath.isComplex(value) || safeMath.isUnit(value);
}

/** INVALID_EXPRESSION: the model wrote something the calculator does not accept. */
export function invalidExpression(message: string, cause?: unknown): ToolError {
  return ToolError.parameter('INVALID_EXPRESSION', message, {
    cause,
    hint: 'Fix the expression: numbers, + - * / ^, parentheses, listed functions, constants pi and e, units.',
  });
}
