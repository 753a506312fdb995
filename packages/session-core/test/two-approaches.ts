// The "two approaches" fixtures loaded for the branch tests (test helper, not exported).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionManager } from '../src/session-manager';
import type { SessionEntry } from '../src/types';
import { fixtureIds, fixturesDir } from './fixtures';

export type TwoApproachesName = 'two-approaches-pi16.jsonl' | 'two-approaches-pi073.jsonl';

export function loadTwoApproaches(name: TwoApproachesName): {
  session: SessionManager;
  ids: Record<string, string>;
  path: (leafId: string) => SessionEntry[];
} {
  const session = SessionManager.fromJsonl(readFileSync(join(fixturesDir(), name), 'utf8'));
  const ids = fixtureIds(name) as Record<string, string>;
  return { session, ids, path: (leafId) => session.getBranch(leafId) };
}
