import {
  API_ROUTES,
  ErrorBody,
  NavigateResult,
  SessionSnapshotEnd,
  SessionSnapshotHead,
} from '@canopy/protocol';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { createSerializerCompiler, forSerialization } from '../src/http/serializers';

type Schema = Record<string, unknown>;

/** Every schema a REST answer is written with: each route's statuses, and the snapshot's lines. */
const responseSchemas: Array<[string, Schema]> = [
  ...Object.entries(API_ROUTES).flatMap(([name, route]) =>
    Object.entries(route.schema.response as Record<string, Schema>).map(
      ([status, schema]): [string, Schema] => [`${name} ${status}`, schema],
    ),
  ),
  ['snapshot head', SessionSnapshotHead as unknown as Schema],
  ['snapshot end', SessionSnapshotEnd as unknown as Schema],
];

/** Whether a schema still holds a keyword fast-json-stringify can write only through a validator. */
function needsValidator(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if (Array.isArray(schema)) return schema.some(needsValidator);
  const record = schema as Schema;
  if ('anyOf' in record || 'oneOf' in record || 'if' in record) return true;
  return Object.entries(record).some(
    ([key, value]) => !['const', 'enum', 'default', 'examples'].includes(key) && needsValidator(value),
  );
}

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'a', 'abc_-1', 'x"y\\z', 'line\nbreak', 'é ü 中 😀', '\u2028', '0'];

/** A value that the schema accepts (or, rarely, one it refuses: the test skips those). */
function valueOf(schema: Schema, next: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.anyOf)) return valueOf(pick(schema.anyOf as Schema[]), next, depth);
  switch (schema.type) {
    case 'null':
      return null;
    case 'boolean':
      return next() < 0.5;
    case 'integer':
      return pick([0, 1, 7, 4096, -1, 2 ** 40]);
    case 'number':
      return pick([0, 0.5, 1e-7, 3.25, -2, 1e21]);
    case 'string':
      return pick(STRINGS);
    case 'array': {
      if (Array.isArray(schema.items))
        return (schema.items as Schema[]).map((item) => valueOf(item, next, depth + 1));
      const length = depth > 4 ? 0 : Math.floor(next() * 4);
      return Array.from({ length }, () => valueOf(schema.items as Schema, next, depth + 1));
    }
    case 'object': {
      const value: Record<string, unknown> = {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [key, property] of Object.entries((schema.properties as Record<string, Schema>) ?? {}))
        if (required.has(key) || next() < 0.5) value[key] = valueOf(property, next, depth + 1);
      for (const property of Object.values((schema.patternProperties as Record<string, Schema>) ?? {}))
        value[pick(STRINGS)] = valueOf(property, next, depth + 1);
      if (schema.additionalProperties === true && next() < 0.5)
        value.extra = pick([null, 1, 'text', { nested: [true, 'x'] }]);
      return value;
    }
    default:
      // An unconstrained value (`Type.Unknown()`).
      return pick([null, 3, 'text', [1, 'two'], { any: { thing: null } }]);
  }
}

describe('response serializers', () => {
  it('write every response without a validator: no union is left for fast-json-stringify to test', () => {
    const left = responseSchemas.filter(([, schema]) => needsValidator(forSerialization(schema)));
    expect(left.map(([name]) => name)).toEqual([]);
    // The protocol's own schemas are unchanged (they validate requests and events too).
    expect(needsValidator(NavigateResult)).toBe(true);
  });

  it('write every valid value byte for byte as the schema as written does', () => {
    let compared = 0;
    for (const [name, schema] of responseSchemas) {
      const asWritten = fastJsonStringify(schema);
      const rewritten = fastJsonStringify(forSerialization(schema));
      for (let seed = 1; seed <= 60; seed++) {
        const value = valueOf(schema, random(seed * 7919));
        if (!Value.Check(schema as unknown as TSchema, value)) continue;
        expect(rewritten(value), `${name}, seed ${seed}`).toBe(asWritten(value));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(responseSchemas.length * 30);
  });

  it('build one serializer per schema, however many routes and statuses share it', () => {
    const compile = createSerializerCompiler();
    const first = compile({ schema: ErrorBody, method: 'GET', url: '/api/info', httpStatus: '404' });
    const second = compile({ schema: ErrorBody, method: 'POST', url: '/api/x', httpStatus: '409' });
    expect(second).toBe(first);
    expect(first({ error: { code: 'ENTRY_NOT_FOUND', message: 'gone' } })).toBe(
      '{"error":{"code":"ENTRY_NOT_FOUND","message":"gone"}}',
    );
  });
});
