import { DIALECTS, FILTER_MODES, ISSUE_KINDS, SessionManager } from '@canopy/session-core';
import { describe, expect, it } from 'vitest';
import { createValidator } from './validate';
import { Dialect, FilterMode, LocatedToolCall, ParseIssue } from './vocabulary';

describe('schemas derived from session-core', () => {
  it('FilterMode accepts exactly session-core’s filter modes', () => {
    const validator = createValidator(FilterMode);
    for (const mode of FILTER_MODES) expect(validator.check(mode)).toBe(true);
    expect(validator.check('labelled-only')).toBe(false);
  });

  it('Dialect accepts exactly pi and omp', () => {
    const validator = createValidator(Dialect);
    expect(DIALECTS.map((dialect) => validator.check(dialect))).toEqual([true, true]);
    expect(validator.check('claude')).toBe(false);
  });

  it('ParseIssue accepts the issues session-core reports and refuses a kind it does not know', () => {
    const validator = createValidator(ParseIssue);
    const session = SessionManager.fromJsonl(
      '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\nnot json\n',
    );
    expect(session.issues.map((issue) => issue.kind)).toEqual(['invalid-json']);
    for (const issue of session.issues) expect(validator.check(issue)).toBe(true);
    for (const kind of ISSUE_KINDS) expect(validator.check({ line: 1, kind, message: 'm' })).toBe(true);
    expect(validator.firstError({ line: 1, kind: 'gremlins', message: 'm' })).toMatch(/^\/kind: /);
  });

  it('LocatedToolCall requires the call id and the entry holding it', () => {
    const validator = createValidator(LocatedToolCall);
    expect(validator.check({ id: 'c1', name: 'read', arguments: { path: 'a' }, entryId: 'e1' })).toBe(true);
    expect(validator.check({ name: 'read', arguments: { path: 'a' } })).toBe(false);
  });
});
