// One owner per piece of browser state (slices/kit.ts): every field of the store is declared by
// one slice, and a slice's `set` calls name only its own fields, spreads and conditionals included.
// The slices' typed setters catch most of this at compile time; this reads the slice files to
// catch what a type cannot (a key smuggled in through a spread). Also: components reach the
// network only through the store's actions (its injected api), never by importing it.

import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createAppStore } from './appStore';
import { fakeApi } from './testing';

const sliceSources = import.meta.glob<string>(['./slices/*.ts', '!./slices/*.test.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
});
const appSources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!./**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

const isFunction = (node: ts.Expression) => ts.isArrowFunction(node) || ts.isFunctionExpression(node);

/** The fields a slice file declares: the non-function properties of the objects its functions return. */
function ownFields(file: ts.SourceFile): Set<string> {
  const fields = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isReturnStatement(node) && node.expression && ts.isObjectLiteralExpression(node.expression)) {
      for (const property of node.expression.properties) {
        if (ts.isPropertyAssignment(property) && !isFunction(property.initializer))
          fields.add(property.name.getText(file));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return fields;
}

/** The keys an argument of `set` can write; throws on one it cannot read (say, a variable). */
function keysWritten(expression: ts.Expression, file: ts.SourceFile): string[] {
  if (ts.isParenthesizedExpression(expression)) return keysWritten(expression.expression, file);
  if (ts.isConditionalExpression(expression))
    return [...keysWritten(expression.whenTrue, file), ...keysWritten(expression.whenFalse, file)];
  if (!ts.isObjectLiteralExpression(expression))
    throw new Error(`${file.fileName}: set(${expression.getText(file)}) writes keys this test cannot read`);
  return expression.properties.flatMap((property) => {
    if (ts.isSpreadAssignment(property)) return keysWritten(property.expression, file);
    if (property.name) return [property.name.getText(file)];
    throw new Error(`${file.fileName}: ${property.getText(file)} in a set call`);
  });
}

/** Every key a file passes to `set(…)` (the slice's own setter, however it reached it). */
function writtenKeys(file: ts.SourceFile): string[] {
  const keys: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : '';
      // One argument: a Map's set(key, value) is not the store's.
      if ((name === 'set' || name === 'setState') && node.arguments.length === 1)
        keys.push(...keysWritten(node.arguments[0]!, file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return keys;
}

const parsed = Object.entries(sliceSources).map(([path, source]) =>
  ts.createSourceFile(path, source, ts.ScriptTarget.ES2022, true),
);

describe('one owner per piece of browser state', () => {
  it('writes, in each slice file, only the fields that slice declares', () => {
    const foreign = parsed.flatMap((file) => {
      const own = ownFields(file);
      return writtenKeys(file)
        .filter((key) => !own.has(key))
        .map((key) => `${file.fileName} writes ${key}`);
    });
    expect(foreign).toEqual([]);
  });

  it('has exactly one slice declaring each field of the store', () => {
    const owners = new Map<string, string[]>();
    for (const file of parsed)
      for (const field of ownFields(file)) owners.set(field, [...(owners.get(field) ?? []), file.fileName]);
    const shared = [...owners].filter(([, files]) => files.length > 1);
    expect(shared).toEqual([]);
    const state = createAppStore({ api: fakeApi(), storage: null }).getState();
    const fields = Object.entries(state)
      .filter(([, value]) => typeof value !== 'function')
      .map(([key]) => key)
      .sort();
    expect(fields).toEqual([...owners.keys()].sort());
  });

  it('finds the writes it checks (a check that reads nothing would pass by itself)', () => {
    const tree = parsed.find((file) => file.fileName.endsWith('/tree.ts'))!;
    expect(writtenKeys(tree)).toEqual(expect.arrayContaining(['session', 'treeView', 'snapshot', 'loading']));
    expect(ownFields(tree)).toEqual(
      new Set(['session', 'treeView', 'followLeaf', 'snapshot', 'loading', 'loadError']),
    );
  });

  it('leaves the network to the store: no file outside store/ imports the api object', () => {
    const importsApi = /import\s*\{[^}]*\bapi\b[^}]*\}\s*from\s*'[./]*\/?net\/api'/;
    const offenders = Object.entries(appSources)
      .filter(([path, source]) => !path.startsWith('../net/') && importsApi.test(source))
      .map(([path]) => path);
    expect(Object.keys(appSources).length).toBeGreaterThan(20);
    expect(offenders).toEqual([]);
  });
});
