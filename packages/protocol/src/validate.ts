import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ClientMessage, ServerEvent } from './ws';

export interface Validator<T extends TSchema> {
  check(value: unknown): value is Static<T>;
  /** The first problem, as "path: message", for error replies; undefined when valid. */
  firstError(value: unknown): string | undefined;
}

/**
 * Compiles the schema once, on the first check: every bundle that imports the protocol (the web
 * app's page and its snapshot worker too) would otherwise pay for compiling both validators when
 * it loads, though only development builds and the server ever check. The compiler generates code
 * with `new Function`; where a Content-Security-Policy forbids that, it falls back to the (slower)
 * interpreting checker.
 */
export function createValidator<T extends TSchema>(schema: T): Validator<T> {
  let compiled: ((value: unknown) => boolean) | undefined;
  const check = (value: unknown): boolean => {
    if (!compiled) {
      try {
        const compiledSchema = TypeCompiler.Compile(schema);
        compiled = (candidate) => compiledSchema.Check(candidate);
      } catch {
        compiled = (candidate) => Value.Check(schema, candidate);
      }
    }
    return compiled(value);
  };
  return {
    check: (value: unknown): value is Static<T> => check(value),
    firstError(value) {
      if (check(value)) return undefined;
      const first = Value.Errors(schema, value).First();
      if (!first) return 'invalid value';
      return `${first.path || '/'}: ${first.message}`;
    },
  };
}

export const clientMessageValidator = createValidator(ClientMessage);
export const serverEventValidator = createValidator(ServerEvent);
