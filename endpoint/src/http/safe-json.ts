/**
 * Parses a request body as JSON, refusing bodies nested too deeply to handle safely and
 * removing keys that could change an object's prototype if the data were ever merged into
 * another object (`__proto__`, and `constructor` holding a `prototype`).
 */

/** The outcome of `parseBody`. */
export type ParsedBody =
  | { ok: true; value: unknown; /** True when keys were removed, so the raw text no longer matches. */ scrubbed: boolean }
  | { ok: false; error: string };

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when valid JSON `text` nests objects and arrays deeper than `maxDepth`. */
function deeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  // Stryker disable next-line EqualityOperator: one step past the end reads NaN, which matches no bracket or quote
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

function isDangerous(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  // A JSON value of another type (string, number, boolean) has no own prototype property.
  return key === 'constructor' && value !== null && Object.prototype.hasOwnProperty.call(value, 'prototype');
}

/** Removes dangerous keys everywhere in `root` (iteratively, no recursion). Returns true when any was removed. */
function scrub(root: unknown): boolean {
  let removed = false;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    // An array's keys are its indexes, never a dangerous name: its items are pushed like an object's values.
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (isDangerous(key, record[key])) {
        delete record[key];
        removed = true;
      } else stack.push(record[key]);
    }
  }
  return removed;
}

/**
 * Parses `text` as JSON. Fails (never throws) when it is not JSON or nests deeper than
 * `maxDepth`; otherwise returns the value with dangerous keys removed.
 */
export function parseBody(text: string, maxDepth: number): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `The body is not valid JSON: ${(error as Error).message}` };
  }
  // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: nesting deeper than maxDepth takes more than 2 × maxDepth characters; a smaller bound only scans more bodies, with the same result
  if (text.length > maxDepth * 2 && deeperThan(text, maxDepth)) {
    return { ok: false, error: `The body nests objects and arrays more than ${maxDepth} levels deep.` };
  }
  // Stryker disable next-line StringLiteral,ConditionalExpression: suspicious only lets bodies that cannot hold a dangerous key skip the scrub; scrubbing one anyway removes nothing
  const suspicious = text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
  return { ok: true, value, scrubbed: suspicious && scrub(value) };
}
