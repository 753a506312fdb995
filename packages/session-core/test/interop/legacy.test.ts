// Interop on the legacy (v1, v2) fixtures. Both implementations migrate them on load; v1 ids are
// random on both sides, so the two migrations are compared by position (same entries in the same
// order, same parent structure, firstKeptEntryId pointing at the same position, same contexts), and
// then each side must read the other's migrated file exactly.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canonicalJson } from './support/canonical';
import { asApi, openReference } from './support/drivers';
import { expectSameSession } from './support/expect-same';
import { fixtureFacts } from '../fixtures';
import { copyFixture, LEGACY_FIXTURES, makeTempDir, removeTempDir } from './support/fixtures';
import { leavesToCheck, positionalIds, snapshot, viewsAt } from './support/projection';
import { loadIn, RETENTIONS } from '../retention';

/** Contexts of these linear 1,000-entry sessions are long: compare them at every 250th entry. */
const STRIDE = 250;

let tempDir: string;

beforeAll(() => {
  tempDir = makeTempDir('interop-legacy');
});

afterAll(() => {
  removeTempDir(tempDir);
});

// 'index': a file that needs migration keeps its entries whole; the migrated reference file is v3 and
// is read back from its bytes.
describe.each(RETENTIONS)('legacy fixtures migrated by both implementations (retain %s)', (retention) => {
  describe.each(LEGACY_FIXTURES)('%s', (name) => {
    test('both migrations give the same entries, parents, compaction targets, tree and contexts by position', () => {
      const dir = makeTempDir('interop-legacy-run');
      const path = copyFixture(name, dir);
      const original = readFileSync(path, 'utf8');
      // The reference migrates and rewrites the copy in place.
      const ref = openReference(path, dir);
      const core = loadIn(retention, original);
      const refApi = asApi(ref);
      const coreApi = asApi(core);

      // The entry count is the generator's (it wrote that many lines); the leaf context is the
      // reference's, computed here side by side, and never empty, so the comparison is not vacuous.
      expect(core.getEntries()).toHaveLength(fixtureFacts(name).entries as number);
      const refMessages = ref.buildSessionContext().messages.length;
      expect(refMessages).toBeGreaterThan(0);
      expect(core.buildSessionContext().messages).toHaveLength(refMessages);
      expect(canonicalJson(core.getHeader())).toBe(canonicalJson(ref.getHeader()));

      const refIds = positionalIds(refApi);
      const coreIds = positionalIds(coreApi);
      const expected = snapshot(refApi, refIds);
      const actual = snapshot(coreApi, coreIds);
      expect(actual.entries).toEqual(expected.entries);
      expect(actual.tree).toEqual(expected.tree);
      expect(actual.leafId).toBe(expected.leafId);
      expect(actual.labels).toEqual(expected.labels);

      // Every migrated compaction points at an entry (v1 line indexes become ids).
      const compactions = core.getEntries().filter((entry) => entry.type === 'compaction');
      for (const compaction of compactions) {
        expect(core.getEntry(compaction.firstKeptEntryId as string)).toBeDefined();
        expect(compaction).not.toHaveProperty('firstKeptEntryIndex');
      }

      const refEntries = refApi.getEntries();
      const coreEntries = coreApi.getEntries();
      const positions = leavesToCheck(refApi, refApi.getLeafId(), STRIDE).map((id) =>
        id === null ? null : refEntries.findIndex((entry) => entry.id === id),
      );
      const at = (entries: typeof refEntries) =>
        positions.map((p) => (p === null ? null : (entries[p]?.id ?? null)));
      expect(viewsAt(coreApi, at(coreEntries), coreIds)).toEqual(viewsAt(refApi, at(refEntries), refIds));
      removeTempDir(dir);
    });

    test("session-core reads the reference's migrated file exactly, and the reference reads session-core's", () => {
      const dir = makeTempDir('interop-legacy-run');
      const path = copyFixture(name, dir);
      const original = readFileSync(path, 'utf8');
      const ref = openReference(path, dir);
      const migratedByRef = readFileSync(path, 'utf8');
      expect(migratedByRef).not.toBe(original);

      const core = loadIn(retention, migratedByRef);
      expect(core.issues).toEqual([]);
      expectSameSession(asApi(ref), asApi(core), { stride: STRIDE });

      const migratedByCore = loadIn(retention, original);
      const written = migratedByCore.toJsonl();
      const corePath = join(dir, 'migrated-by-core.jsonl');
      writeFileSync(corePath, written);
      const refOfCore = openReference(corePath, dir);
      // Already v3: the reference has nothing to migrate and leaves the file alone.
      expect(readFileSync(corePath, 'utf8')).toBe(written);
      expectSameSession(asApi(migratedByCore), asApi(refOfCore), { stride: STRIDE });
      removeTempDir(dir);
    });
  });
});
