// The assertion shared by every interop test: two sessions (a writer and a reader of its file, or the
// reference and session-core on the same file) report the same session through the shared API.
import { expect } from 'vitest';
import { canonicalJson } from './canonical';
import { exactIds, leavesToCheck, snapshot, viewsAt, type TreeSessionApi } from './projection';

/** The id of the last entry in append order: where a reader that only has the file puts the leaf. */
export function lastEntryId(session: TreeSessionApi): string | null {
  const entries = session.getEntries();
  return entries[entries.length - 1]?.id ?? null;
}

export interface SameSessionOptions {
  /** Also compare the views at every `stride`-th entry (default 1: at every entry). */
  stride?: number;
  /** Compare the views at these leaves instead of every tip (plus none and `expected`'s leaf). */
  leaves?: readonly string[];
  /**
   * The file is an oh-my-pi one, whose specifics the reference (pi) cannot read: its
   * `model_change {model, role}` (read as a model with neither provider nor id) and its header `title`
   * (session-core's name fallback). The context `model` and the session name are then not compared.
   */
  omp?: boolean;
}

/**
 * Asserts that `actual` reports the same session as `expected`: header, entries, tree with child order
 * and labels, getChildren, getLabel, the leaf (a loaded file puts it on its last line), and the path and
 * model context with the leaf at every tip, at `expected`'s leaf, before the first entry, and at every
 * `stride`-th entry (or at `leaves`). Afterwards both leaves are back where they were.
 */
export function expectSameSession(
  expected: TreeSessionApi,
  actual: TreeSessionApi,
  options: SameSessionOptions = {},
): void {
  const expectedLeaf = expected.getLeafId();
  expect(canonicalJson(actual.getHeader())).toBe(canonicalJson(expected.getHeader()));
  const stride = options.stride ?? 1;
  const want = snapshot(expected, exactIds, stride);
  const got = snapshot(actual, exactIds, stride);
  expect(got.entries).toEqual(want.entries);
  if (!options.omp) expect(got.name).toBe(want.name);
  expect(got.tree).toEqual(want.tree);
  expect(got.labels).toEqual(want.labels);
  expect(got.children).toEqual(want.children);
  expect(got.leafId).toBe(lastEntryId(expected));
  const leaves = options.leaves
    ? [null, expectedLeaf, ...options.leaves]
    : leavesToCheck(expected, expectedLeaf, stride);
  const actualLeaf = actual.getLeafId();
  const withModel = !options.omp;
  expect(viewsAt(actual, leaves, exactIds, withModel)).toEqual(
    viewsAt(expected, leaves, exactIds, withModel),
  );
  restoreLeaf(expected, expectedLeaf);
  restoreLeaf(actual, actualLeaf);
}

export function restoreLeaf(session: TreeSessionApi, leaf: string | null): void {
  if (leaf === null) session.resetLeaf();
  else session.branch(leaf);
}

/**
 * The issues a clean file written by either implementation may still have: createBranchedSession drops
 * label entries from the path and copies the other entries verbatim (docs/tree-and-context.md#branched-session), so an
 * entry that followed a label keeps the dropped label's id as parent and is an orphan in the new file.
 * Exactly those entries, and nothing else, must be reported (header on line 1, entries from line 2).
 */
export function expectOnlyOrphanIssues(
  issues: readonly { line: number; kind: string }[],
  session: TreeSessionApi,
): void {
  const entries = session.getEntries();
  const ids = new Set(entries.map((entry) => entry.id));
  const orphans = entries.flatMap((entry, index) =>
    entry.parentId !== null && !ids.has(entry.parentId) ? [{ line: index + 2, kind: 'orphan' }] : [],
  );
  expect(issues.map(({ line, kind }) => ({ line, kind }))).toEqual(orphans);
}
