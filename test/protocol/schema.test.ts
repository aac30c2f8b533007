import fc from 'fast-check';
import { describe as suite, expect, it } from 'vitest';
import {
  anyObject,
  array,
  check,
  describe,
  discriminated,
  displayPath,
  finiteNumber,
  isPlainObject,
  object,
  oneOf,
  optional,
  string,
} from '../../src/protocol/schema.js';

// The small schema language under validate(): what each check accepts, and what its problems say
// (path, expected, received), since that is what a user reads in a TrackingValidationError.

suite('what a problem says it received', () => {
  it.each([
    ['null', null, 'null'],
    ['an array', [1], 'array'],
    ['an empty array', [], 'array'],
    ['NaN', NaN, 'NaN'],
    ['Infinity', Infinity, 'Infinity'],
    ['-Infinity', -Infinity, 'Infinity'],
    ['a number', 42, 'number'],
    ['zero', 0, 'number'],
    ['an empty string', '', 'empty string'],
    ['a string', 'some text', 'string'],
    ['a one-character string', 'x', 'string'],
    ['a boolean', false, 'boolean'],
    ['an object', { a: 1 }, 'object'],
    ['undefined', undefined, 'undefined'],
    ['a bigint', 1n, 'bigint'],
  ])('describes %s as "%s"', (_name, value, expected) => {
    expect(describe(value)).toBe(expected);
  });

  it('names only the type of what it found, never its content', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 3 }), (secret) => {
        const [issue] = check(object({ count: finiteNumber() }), { count: secret });
        expect(issue).toEqual({ path: 'count', expected: 'a finite number', received: 'string' });
      }),
    );
  });
});

suite('paths', () => {
  it('shows the record itself as (root)', () => {
    expect(displayPath('')).toBe('(root)');
    expect(displayPath('a.b')).toBe('a.b');
    expect(check(object({}), 'text')).toEqual([{ path: '(root)', expected: 'an object', received: 'string' }]);
  });

  it('joins nested field names with dots and array items with their index', () => {
    const schema = object({ a: object({ b: array(object({ c: string() })) }) });
    expect(check(schema, { a: { b: [{ c: 'ok' }, { c: 'ok' }, { c: 1 }] } })).toEqual([
      { path: 'a.b[2].c', expected: 'a string', received: 'number' },
    ]);
  });

  it('names the items of a root array by their index alone', () => {
    expect(check(array(string()), ['a', 2])).toEqual([{ path: '[1]', expected: 'a string', received: 'number' }]);
  });
});

suite('strings and numbers', () => {
  it('a string accepts any string, the empty one included, and nothing else', () => {
    expect(check(string(), '')).toEqual([]);
    expect(check(string(), 'x')).toEqual([]);
    expect(check(string(), 1)).toEqual([{ path: '(root)', expected: 'a string', received: 'number' }]);
    expect(check(string(), null)).toEqual([{ path: '(root)', expected: 'a string', received: 'null' }]);
  });

  it('a non-empty string refuses the empty string, saying so', () => {
    expect(check(string({ nonEmpty: true }), 'x')).toEqual([]);
    expect(check(string({ nonEmpty: true }), '')).toEqual([{ path: '(root)', expected: 'a non-empty string', received: 'empty string' }]);
    expect(check(string({ nonEmpty: true }), 3)).toEqual([{ path: '(root)', expected: 'a non-empty string', received: 'number' }]);
  });

  it('a finite number accepts zero, negatives and decimals, and refuses NaN, Infinity and numeric strings', () => {
    for (const ok of [0, -0, -3, 12.5, Number.MAX_VALUE]) expect(check(finiteNumber(), ok)).toEqual([]);
    const received = (value: unknown) => check(finiteNumber(), value).map((i) => `${i.expected}/${i.received}`);
    expect(received(NaN)).toEqual(['a finite number/NaN']);
    expect(received(Infinity)).toEqual(['a finite number/Infinity']);
    expect(received(-Infinity)).toEqual(['a finite number/Infinity']);
    expect(received('12')).toEqual(['a finite number/string']);
    expect(received(null)).toEqual(['a finite number/null']);
    expect(received(true)).toEqual(['a finite number/boolean']);
  });

  it('a finite number accepts every finite number and refuses every other value', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      expect(check(finiteNumber(), n)).toEqual([]);
    }));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.boolean(), fc.constant(null), fc.object()), (v) => {
        expect(check(finiteNumber(), v)).toHaveLength(1);
      }),
    );
  });
});

suite('one of a fixed set', () => {
  const colour = oneOf(['red', 'green', 'blue']);

  it('accepts each listed value', () => {
    for (const value of ['red', 'green', 'blue']) expect(check(colour, value)).toEqual([]);
  });

  it('refuses any other value, listing the allowed ones quoted and comma-separated', () => {
    for (const value of ['purple', 'Red', '', 0, null, ['red']]) {
      expect(check(colour, value)).toEqual([{ path: '(root)', expected: 'one of "red", "green", "blue"', received: describe(value) }]);
    }
  });
});

suite('free-form objects', () => {
  it('accepts any plain object and refuses arrays, null and scalars', () => {
    expect(check(anyObject(), {})).toEqual([]);
    expect(check(anyObject(), { deep: { x: [1] } })).toEqual([]);
    for (const value of [[], null, 'x', 1, undefined]) {
      expect(check(anyObject(), value)).toEqual([{ path: '(root)', expected: 'an object', received: describe(value) }]);
    }
  });

  it('isPlainObject is true for objects only, not arrays or null', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject('x')).toBe(false);
  });
});

suite('objects with named fields', () => {
  const person = object({ name: string(), nickname: optional(string()) });

  it('refuses a value that is not an object', () => {
    for (const value of [null, [], 'x', 3]) {
      expect(check(person, value)).toEqual([{ path: '(root)', expected: 'an object', received: describe(value) }]);
    }
  });

  it('reports a missing required field as required/missing', () => {
    expect(check(person, {})).toEqual([{ path: 'name', expected: 'required', received: 'missing' }]);
  });

  it('treats a field set to undefined as missing, as JSON.stringify drops it', () => {
    expect(check(person, { name: undefined })).toEqual([{ path: 'name', expected: 'required', received: 'missing' }]);
    expect(check(person, { name: 'n', nickname: undefined })).toEqual([]);
  });

  it('does not count a field inherited from a prototype, which JSON.stringify would not send', () => {
    const inherited = Object.create({ name: 'from the prototype' }) as object;
    expect(check(person, inherited)).toEqual([{ path: 'name', expected: 'required', received: 'missing' }]);
  });

  it('accepts an absent optional field, and checks it when present', () => {
    expect(check(person, { name: 'n' })).toEqual([]);
    expect(check(person, { name: 'n', nickname: 'nn' })).toEqual([]);
    expect(check(person, { name: 'n', nickname: 5 })).toEqual([{ path: 'nickname', expected: 'a string', received: 'number' }]);
  });

  it('a null optional field is present and checked, not skipped', () => {
    expect(check(person, { name: 'n', nickname: null })).toEqual([{ path: 'nickname', expected: 'a string', received: 'null' }]);
  });

  it('allows and ignores fields the shape does not name', () => {
    expect(check(person, { name: 'n', extra: { anything: [null] } })).toEqual([]);
  });

  it('reports every problem, in the order of the shape', () => {
    const schema = object({ a: string(), b: finiteNumber(), c: optional(string()) });
    expect(check(schema, { c: 1, b: 'x' }).map((i) => i.path)).toEqual(['a', 'b', 'c']);
  });

  it('returns no problem for a conforming value', () => {
    expect(check(person, { name: '' })).toEqual([]);
  });
});

suite('arrays', () => {
  it('refuses a value that is not an array, saying whether it may be empty', () => {
    expect(check(array(string()), {})).toEqual([{ path: '(root)', expected: 'an array', received: 'object' }]);
    expect(check(array(string()), 'abc')).toEqual([{ path: '(root)', expected: 'an array', received: 'string' }]);
    expect(check(array(string(), { nonEmpty: true }), { length: 1, 0: 'a' })).toEqual([
      { path: '(root)', expected: 'a non-empty array', received: 'object' },
    ]);
  });

  it('accepts an empty array unless it must not be empty', () => {
    expect(check(array(string()), [])).toEqual([]);
    expect(check(array(string(), { nonEmpty: true }), [])).toEqual([{ path: '(root)', expected: 'a non-empty array', received: 'empty array' }]);
    expect(check(array(string(), { nonEmpty: true }), ['a'])).toEqual([]);
  });

  it('checks every item and no more', () => {
    expect(check(array(string()), ['a', 'b', 'c'])).toEqual([]);
    expect(check(array(string()), [1, 'b', 3]).map((i) => i.path)).toEqual(['[0]', '[2]']);
  });
});

suite('a shape picked by a type field', () => {
  const shape = discriminated('kind', {
    circle: object({ radius: finiteNumber() }),
    square: object({ side: finiteNumber() }),
  });

  it('checks the value against the shape its type names', () => {
    expect(check(shape, { kind: 'circle', radius: 1 })).toEqual([]);
    expect(check(shape, { kind: 'square', side: 2 })).toEqual([]);
    expect(check(shape, { kind: 'circle', side: 2 })).toEqual([{ path: 'radius', expected: 'required', received: 'missing' }]);
    expect(check(shape, { kind: 'square', radius: 1 })).toEqual([{ path: 'side', expected: 'required', received: 'missing' }]);
  });

  it('refuses a value that is not an object', () => {
    for (const value of [null, [], 'circle']) {
      expect(check(shape, value)).toEqual([{ path: '(root)', expected: 'an object', received: describe(value) }]);
    }
  });

  it('reports a missing type as required/missing', () => {
    expect(check(shape, { radius: 1 })).toEqual([{ path: 'kind', expected: 'required', received: 'missing' }]);
    expect(check(shape, { kind: undefined, radius: 1 })).toEqual([{ path: 'kind', expected: 'required', received: 'missing' }]);
  });

  it('refuses an unknown or non-string type, listing the allowed types', () => {
    const expected = 'one of "circle", "square"';
    expect(check(shape, { kind: 'triangle' })).toEqual([{ path: 'kind', expected, received: 'string' }]);
    expect(check(shape, { kind: null })).toEqual([{ path: 'kind', expected, received: 'null' }]);
    expect(check(shape, { kind: 7 })).toEqual([{ path: 'kind', expected, received: 'number' }]);
    // An array whose only item is a type name would name that type as a property key.
    expect(check(shape, { kind: ['circle'], radius: 1 })).toEqual([{ path: 'kind', expected, received: 'array' }]);
  });

  it('does not take inherited names such as toString or constructor for types', () => {
    for (const kind of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(check(shape, { kind })).toEqual([{ path: 'kind', expected: 'one of "circle", "square"', received: 'string' }]);
    }
  });

  it('names the type field by its full path when nested', () => {
    expect(check(object({ shape }), { shape: {} })).toEqual([{ path: 'shape.kind', expected: 'required', received: 'missing' }]);
    expect(check(object({ shape }), { shape: { kind: 'circle', radius: 'big' } })).toEqual([
      { path: 'shape.radius', expected: 'a finite number', received: 'string' },
    ]);
  });
});
