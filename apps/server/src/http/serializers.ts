import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema';

/** A JSON Schema as the protocol's TypeBox schemas are at run time: plain objects. */
type Schema = Record<string, unknown>;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/**
 * Keywords a scalar option of a union may carry and still be serialised by its type alone: they
 * constrain or describe the value, and fast-json-stringify applies none of them while writing.
 * (`format` is left out on purpose: it changes how a Date is written.)
 */
const SCALAR_KEYWORDS = new Set([
  'type',
  'const',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'title',
  'description',
  '$comment',
]);

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_SLOTS = [
  'items',
  'prefixItems',
  'additionalProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
] as const;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The type of a union option that is a bare scalar (`Type.String()`, `Type.Literal('x')`, null). */
function scalarType(option: unknown): string | undefined {
  if (!isSchema(option) || typeof option.type !== 'string' || !SCALAR_TYPES.has(option.type))
    return undefined;
  return Object.keys(option).every((key) => SCALAR_KEYWORDS.has(key)) ? option.type : undefined;
}

const isNull = (option: unknown): boolean => isSchema(option) && scalarType(option) === 'null';
const isLiteral = (option: unknown): boolean => isSchema(option) && 'const' in option;

const rewritten = new WeakMap<Schema, Schema>();

/**
 * The same response schema, with its unions in the forms fast-json-stringify writes without a
 * validator. It writes an `anyOf` by running an Ajv validator per option until one matches, and
 * builds that Ajv instance when the serializer is built and compiles each option on its first use:
 * the protocol's `Nullable(…)` ids and its unions of string literals (every error body's `code`)
 * made each route's first answer, a jump's included, pay for compiling validators (~40 ms of CPU
 * for `NavigateResult` on a fresh server), and startup build an Ajv instance per route and status.
 *
 * - a union of scalars of distinct types (`Nullable(Type.String())`, string literals, a string or
 *   the literal 0) becomes `type: [those types]` (one type: `type: t`), which the serializer tells
 *   apart by `typeof`;
 * - a union of one schema and null becomes that schema with `nullable: true`.
 *
 * Every valid value is written byte for byte as before (serializers.test.ts); a union of anything
 * else is kept as it is. The protocol's schemas are never changed: they also validate requests and,
 * in the browser, events. Shared sub-schemas are rewritten once.
 */
export function forSerialization(schema: Schema): Schema {
  const done = rewritten.get(schema);
  if (done) return done;
  let result: Schema = { ...schema };
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isSchema(map))
      result[key] = Object.fromEntries(
        Object.entries(map).map(([name, value]) => [name, isSchema(value) ? forSerialization(value) : value]),
      );
  }
  for (const key of SCHEMA_SLOTS) {
    const slot = schema[key];
    if (Array.isArray(slot))
      result[key] = slot.map((value) => (isSchema(value) ? forSerialization(value) : value));
    else if (isSchema(slot)) result[key] = forSerialization(slot);
  }
  const options = result.anyOf;
  if (Array.isArray(options) && options.length > 0) result = withoutUnion(result, options) ?? result;
  rewritten.set(schema, result);
  return result;
}

function withoutUnion(schema: Schema, options: unknown[]): Schema | undefined {
  const { anyOf: _anyOf, ...rest } = schema;
  if (rest.type !== undefined || rest.nullable !== undefined) return undefined;
  const types = options.map(scalarType);
  if (types.every((type) => type !== undefined)) {
    const distinct = [...new Set(types)];
    // The serializer tells the types apart by `typeof`; two options of one type are told apart
    // only by a validator, unless both are literals (a literal is written as the value is).
    const clash = distinct.some((type) => {
      const ofType = options.filter((_option, at) => types[at] === type);
      return ofType.length > 1 && !ofType.every(isLiteral);
    });
    if (clash || (distinct.includes('integer') && distinct.includes('number'))) return undefined;
    return { ...rest, type: distinct.length === 1 ? distinct[0] : distinct };
  }
  const nonNull = options.filter((option) => !isNull(option));
  if (options.length === 2 && nonNull.length === 1) {
    const [only] = nonNull as [Schema];
    const combinator = ['anyOf', 'oneOf', 'allOf', 'if', '$ref', 'const'].some((key) => key in only);
    if (combinator || only.nullable !== undefined || Array.isArray(only.type)) return undefined;
    return { ...rest, ...only, nullable: true };
  }
  return undefined;
}

const built = new WeakMap<object, (data: unknown) => string>();

/**
 * The serializer of a response schema, rewritten by `forSerialization` and built once per schema
 * object in the process, however many routes and statuses share it (every route's nine error
 * statuses are one `ErrorBody`: Fastify's default builds a serializer per route and status, ~160
 * at startup). A serializer is a pure function of its schema, so apps in one process share them.
 */
export function serializerFor<T = unknown>(schema: object): (data: T) => string {
  let serialize = built.get(schema);
  if (!serialize) {
    serialize = fastJsonStringify(forSerialization(schema as Schema)) as (data: unknown) => string;
    built.set(schema, serialize);
  }
  return serialize;
}

/** Fastify's serializer compiler: `serializerFor` of each response schema. */
export function createSerializerCompiler(): FastifySerializerCompiler<unknown> {
  return ({ schema }) => serializerFor(schema as object);
}
