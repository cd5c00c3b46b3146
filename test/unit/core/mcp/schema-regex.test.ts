// A server's JSON Schema regular expressions never run in the host: `^(a+)+$` against a long argument would
// block the extension host for minutes with JavaScript's backtracking engine. The model still sees them.
import * as assert from 'node:assert/strict';
import { boundedSchemaValidator, prepareInputSchema, withoutRegexKeywords } from '../../../../src/core/mcp/schema';

const EVIL = '^(a+)+$';
/** 28 characters take ~2 s each for a backtracking engine (doubling with every one more); 100,000 would take forever. */
const slow = (n: number, c = 'a') => `${c.repeat(n)}!`;

function timed<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t0 };
}

/** Validates with the registry's zod schema; returns the issues (empty when valid). */
function check(schema: unknown, args: unknown): { issues: string[]; ms: number } {
  const { zod } = prepareInputSchema(schema);
  const { value, ms } = timed(() => zod.safeParse(args));
  return { issues: value.success ? [] : value.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`), ms };
}

describe('mcp schema: regular expressions from a server cannot block the host', () => {
  it('pattern, patternProperties and propertyNames with a catastrophic expression check in milliseconds', () => {
    const cases: [string, unknown, (n: number) => unknown][] = [
      [
        'pattern',
        { type: 'object', properties: { text: { type: 'string', pattern: EVIL } } },
        (n) => ({ text: slow(n) }),
      ],
      [
        'pattern in an array item',
        { type: 'object', properties: { list: { type: 'array', items: { type: 'string', pattern: EVIL } } } },
        (n) => ({ list: [slow(n), slow(n)] }),
      ],
      [
        'pattern behind $ref',
        {
          type: 'object',
          $defs: { s: { type: 'string', pattern: EVIL } },
          properties: { text: { $ref: '#/$defs/s' } },
        },
        (n) => ({ text: slow(n) }),
      ],
      [
        'patternProperties',
        { type: 'object', patternProperties: { [EVIL]: { type: 'string' } } },
        (n) => ({ [slow(n)]: 'x' }),
      ],
      ['propertyNames', { type: 'object', propertyNames: { pattern: EVIL } }, (n) => ({ [slow(n)]: 'x' })],
      [
        'nested, in anyOf',
        {
          type: 'object',
          properties: {
            o: {
              anyOf: [
                { type: 'object', propertyNames: { pattern: EVIL } },
                { type: 'string', pattern: EVIL },
              ],
            },
          },
        },
        (n) => ({ o: { [slow(n)]: 1 } }),
      ],
    ];
    for (const [name, schema, args] of cases) {
      const moderate = check(schema, args(28));
      assert.ok(moderate.ms < 100, `${name}: ${moderate.ms.toFixed(0)} ms for a 29-character value`);
      const long = check(schema, args(100_000));
      assert.ok(long.ms < 200, `${name}: ${long.ms.toFixed(0)} ms for a 100,001-character value`);
      assert.deepEqual(long.issues, [], `${name}: the expression is left to the server, not failed here`);
    }
  });

  it('the model still gets the schema with its expressions, unchanged', () => {
    const schema = {
      type: 'object',
      properties: { text: { type: 'string', pattern: EVIL } },
      patternProperties: { '^x-': { type: 'number' } },
      propertyNames: { pattern: '^[a-z-]+$' },
    };
    const { json } = prepareInputSchema(schema);
    assert.deepEqual(json.properties, schema.properties);
    assert.deepEqual(json.patternProperties, schema.patternProperties);
    assert.deepEqual(json.propertyNames, schema.propertyNames);
  });

  it('everything else is still checked, and taking the expressions out never rejects more', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        n: { type: 'integer' },
        c: { const: { pattern: 'data, not a keyword' } },
      },
      required: ['n'],
      patternProperties: { '^x-': { type: 'number' } },
      additionalProperties: false,
    };
    assert.deepEqual(
      check(schema, { n: 1, pattern: 'a property called pattern', 'x-a': 2, c: { pattern: 'data, not a keyword' } })
        .issues,
      [],
    );
    assert.deepEqual(check(schema, { n: 'one' }).issues, ['n: must be integer']);
    assert.deepEqual(
      check(schema, { n: 1, pattern: 5 }).issues,
      ['pattern: must be string'],
      'a property named "pattern" keeps its schema',
    );
    assert.deepEqual(check(schema, {}).issues, ['n: required property is missing']);
    assert.equal(
      check(schema, { n: 1, c: { pattern: 'other' } }).issues.length,
      1,
      'a const holding a "pattern" key is data, kept whole',
    );
    // With patternProperties gone, additionalProperties: false would refuse what the pattern allowed: it goes too.
    assert.deepEqual(check(schema, { n: 1, 'x-b': 3 }).issues, []);
    const evaluated = { type: 'object', allOf: [{ patternProperties: { '^x-': true } }], unevaluatedProperties: false };
    assert.deepEqual(check(evaluated, { 'x-a': 1 }).issues, []);
  });

  it('withoutRegexKeywords takes out only the expressions', () => {
    assert.deepEqual(
      withoutRegexKeywords({
        type: 'object',
        properties: { pattern: { type: 'string', pattern: 'a' } },
        enum: [{ pattern: 'b' }],
        items: [{ pattern: 'c', minLength: 1 }],
      }),
      {
        type: 'object',
        properties: { pattern: { type: 'string' } },
        enum: [{ pattern: 'b' }],
        items: [{ minLength: 1 }],
      },
    );
  });

  it('tool outputs: the SDK client validator is bounded the same way', () => {
    const validate = boundedSchemaValidator.getValidator<{ value: string }>({
      type: 'object',
      properties: { value: { type: 'string', pattern: EVIL }, n: { type: 'number' } },
      required: ['value'],
    });
    const { value, ms } = timed(() => validate({ value: slow(28) }));
    assert.ok(ms < 100, `${ms.toFixed(0)} ms`);
    assert.equal(value.valid, true);
    assert.ok(timed(() => validate({ value: slow(100_000) })).ms < 200);
    const bad = validate({ value: 'x', n: 'no' });
    assert.equal(bad.valid, false);
    assert.match(bad.errorMessage ?? '', /must be number/);
    assert.equal(
      boundedSchemaValidator.getValidator({ type: 'object', properties: { a: { $ref: '#/nowhere' } } })({ a: 1 }).valid,
      true,
      'a schema that does not compile lets everything through',
    );
  });
});
