/**
 * A small schema language: each schema is a function that checks a value and appends every
 * problem it finds to a list, with the field path. No dependencies, no allocation on success,
 * and it never throws: whatever the input (cycles, getters aside, huge or deep values), the
 * checks only look at the fields the spec names.
 */

/** One problem found in a record: where it is, what the spec expects there, and what was found. */
export interface ValidationIssue {
  /** Field path, e.g. `entry[0].messaging[1].sender.id`; `(root)` for the record itself. */
  path: string;
  /** What the spec expects at that path. */
  expected: string;
  /** A short description of what was found (its type, never its content). */
  received: string;
}

/** Checks `value` at `path`, appending problems to `issues`. */
export type Schema = (value: unknown, path: string, issues: ValidationIssue[]) => void;

const hasOwn = Object.prototype.hasOwnProperty;

/** Describes a value's type for an error message without echoing its content (which may be personal data). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return 'Infinity';
  }
  if (typeof value === 'string' && value.length === 0) return 'empty string';
  return typeof value;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Shows the path of the root record as `(root)`. */
export function displayPath(path: string): string {
  return path === '' ? '(root)' : path;
}

function fail(issues: ValidationIssue[], path: string, expected: string, value: unknown): void {
  issues.push({ path: displayPath(path), expected, received: describe(value) });
}

/** A plain object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string; with `nonEmpty`, also not empty. */
export function string(options: { nonEmpty?: boolean } = {}): Schema {
  const expected = options.nonEmpty ? 'a non-empty string' : 'a string';
  return (value, path, issues) => {
    if (typeof value !== 'string' || (options.nonEmpty && value.length === 0)) fail(issues, path, expected, value);
  };
}

/** A finite number (not NaN, not Infinity). */
export function finiteNumber(): Schema {
  return (value, path, issues) => {
    // Number.isFinite does not convert: it is false for anything that is not a number.
    if (!Number.isFinite(value)) fail(issues, path, 'a finite number', value);
  };
}

/** One of a fixed set of strings. */
export function oneOf(values: readonly string[]): Schema {
  const expected = `one of ${values.map((v) => `"${v}"`).join(', ')}`;
  return (value, path, issues) => {
    if (!(values as readonly unknown[]).includes(value)) fail(issues, path, expected, value);
  };
}

/** Any plain JSON object; its content is free-form and not checked. */
export function anyObject(): Schema {
  return (value, path, issues) => {
    if (!isPlainObject(value)) fail(issues, path, 'an object', value);
  };
}

/** Marks a field as optional: `undefined` (or absent) passes. */
export interface OptionalSchema {
  optional: true;
  schema: Schema;
}

export function optional(schema: Schema): OptionalSchema {
  return { optional: true, schema };
}

export type Shape = Record<string, Schema | OptionalSchema>;

/**
 * An object with the given fields. Fields not named in the shape are allowed and not checked
 * (the spec says platform JSON may carry more than it lists).
 */
export function object(shape: Shape): Schema {
  const fields = Object.keys(shape).map((key) => {
    const entry = shape[key];
    return typeof entry === 'function'
      ? { key, schema: entry, optional: false }
      : { key, schema: entry.schema, optional: entry.optional };
  });
  return (value, path, issues) => {
    if (!isPlainObject(value)) {
      fail(issues, path, 'an object', value);
      return;
    }
    for (const field of fields) {
      const present = hasOwn.call(value, field.key) && value[field.key] !== undefined;
      if (!present) {
        if (!field.optional) issues.push({ path: join(path, field.key), expected: 'required', received: 'missing' });
        continue;
      }
      field.schema(value[field.key], join(path, field.key), issues);
    }
  };
}

/** An array whose items all match `item`; with `nonEmpty`, at least one item. */
export function array(item: Schema, options: { nonEmpty?: boolean } = {}): Schema {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      fail(issues, path, options.nonEmpty ? 'a non-empty array' : 'an array', value);
      return;
    }
    if (options.nonEmpty && value.length === 0) {
      issues.push({ path: displayPath(path), expected: 'a non-empty array', received: 'empty array' });
      return;
    }
    for (let i = 0; i < value.length; i++) item(value[i], `${path}[${i}]`, issues);
  };
}

/** Picks a schema by the value of a discriminating string field (e.g. an event's `type`). */
export function discriminated(field: string, variants: Record<string, Schema>): Schema {
  const check = oneOf(Object.keys(variants));
  return (value, path, issues) => {
    if (!isPlainObject(value)) {
      fail(issues, path, 'an object', value);
      return;
    }
    const tag = value[field];
    if (typeof tag !== 'string' || !hasOwn.call(variants, tag)) {
      if (tag === undefined) issues.push({ path: join(path, field), expected: 'required', received: 'missing' });
      else check(tag, join(path, field), issues);
      return;
    }
    variants[tag](value, path, issues);
  };
}

/** Runs a schema and returns every problem found (empty when the value conforms). */
export function check(schema: Schema, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  schema(value, '', issues);
  return issues;
}
