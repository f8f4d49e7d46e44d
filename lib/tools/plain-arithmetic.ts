import type { CalculatorOutput } from './evaluate-expression';

/** Longest expression evaluated here; longer ones go to a worker. */
export const PLAIN_ARITHMETIC_MAX_LENGTH = 200;
/** Deepest parenthesis nesting evaluated here. */
const MAX_DEPTH = 32;
/** Digits a number literal may have here (a double holds 15 exactly). */
const MAX_DIGITS = 15;

/**
 * Plain arithmetic — decimal numbers, `+ - * /`, unary signs, parentheses and spaces, at most
 * 200 characters — evaluated on the calling thread. Its cost is linear in its length and
 * bounded (microseconds), so it cannot stall the event loop, and it saves the trip to a
 * calculator worker (a structured-clone message each way and a thread wake-up), which costs more
 * than the arithmetic. Everything else returns null and goes to the worker, which evaluates it
 * with mathjs and answers or explains as always: functions, `^`, `%`, units, implicit
 * multiplication (`2(3)`, `2 3`), exponents (`1e5`), a number with a leading zero, a result that
 * is not finite (division by zero), an explicit precision. The answer is shaped as the worker
 * shapes it; `plain-arithmetic.property.test.ts` checks it equals mathjs's on random expressions.
 * @example evaluatePlainArithmetic('2 * (3 + 4)') // { expression: '2 * (3 + 4)', result: 14, type: 'number' }
 */
export function evaluatePlainArithmetic(expression: string): CalculatorOutput | null {
  if (expression.length > PLAIN_ARITHMETIC_MAX_LENGTH) return null;
  const value = new Parser(expression).parse();
  if (value === null || !Number.isFinite(value)) return null;
  // As the worker rounds: integers a double holds exactly stay exact; the rest lose binary noise.
  const result = Number.isSafeInteger(value) ? value : Number(value.toPrecision(15));
  return { expression, result, type: 'number' };
}

const SPACE = 32;
const ZERO = 48;
const NINE = 57;
const DOT = 46;

/** Recursive descent over the characters; `null` from any rule means "not plain arithmetic". */
class Parser {
  private at = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  parse(): number | null {
    const value = this.sum();
    this.skipSpaces();
    return value !== null && this.at === this.text.length ? value : null;
  }

  private skipSpaces(): void {
    while (this.text.charCodeAt(this.at) === SPACE) this.at++;
  }

  /** sum := product (('+' | '-') product)* */
  private sum(): number | null {
    let left = this.product();
    while (left !== null) {
      this.skipSpaces();
      const op = this.text[this.at];
      if (op !== '+' && op !== '-') break;
      this.at++;
      const right = this.product();
      if (right === null) return null;
      left = op === '+' ? left + right : left - right;
    }
    return left;
  }

  /** product := signed (('*' | '/') signed)* */
  private product(): number | null {
    let left = this.signed();
    while (left !== null) {
      this.skipSpaces();
      const op = this.text[this.at];
      if (op !== '*' && op !== '/') break;
      this.at++;
      const right = this.signed();
      if (right === null) return null;
      left = op === '*' ? left * right : left / right;
    }
    return left;
  }

  /** signed := ('+' | '-') signed | primary */
  private signed(): number | null {
    this.skipSpaces();
    const sign = this.text[this.at];
    if (sign === '+' || sign === '-') {
      if (++this.depth > MAX_DEPTH) return null;
      this.at++;
      const value = this.signed();
      this.depth--;
      if (value === null) return null;
      return sign === '-' ? -value : value;
    }
    return this.primary();
  }

  /** primary := number | '(' sum ')' */
  private primary(): number | null {
    if (this.text[this.at] === '(') {
      if (++this.depth > MAX_DEPTH) return null;
      this.at++;
      const value = this.sum();
      this.skipSpaces();
      if (value === null || this.text[this.at] !== ')') return null;
      this.at++;
      this.depth--;
      return value;
    }
    return this.number();
  }

  /** number := digits ('.' digits)?, no leading zero before another digit, at most 15 digits. */
  private number(): number | null {
    const start = this.at;
    let digits = this.digits();
    if (digits === 0) return null;
    if (digits > 1 && this.text.charCodeAt(start) === ZERO) return null;
    if (this.text.charCodeAt(this.at) === DOT) {
      this.at++;
      const fraction = this.digits();
      if (fraction === 0) return null;
      digits += fraction;
    }
    if (digits > MAX_DIGITS) return null;
    // What follows a number must be an operator, a parenthesis closing, a space or the end:
    // `2(3)`, `2x` or `1e5` is mathjs's to read (implicit multiplication, units, exponents).
    const next = this.text.charCodeAt(this.at);
    if (next === DOT || (next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 40) return null;
    return Number(this.text.slice(start, this.at));
  }

  private digits(): number {
    const start = this.at;
    for (let c = this.text.charCodeAt(this.at); c >= ZERO && c <= NINE; c = this.text.charCodeAt(this.at)) this.at++;
    return this.at - start;
  }
}
