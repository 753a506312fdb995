// Folding and segment jumps against pi 1.6.0's own tree selector (test/pi16.ts,
// `TreeSelectorComponent`), driven by the same keys: the same session, then the same key presses
// (Ctrl+←/→, Alt+←/→, ↑/↓, Ctrl+O, typing, Backspace, Esc) on both must give the same rendered
// lines, fold glyphs included, and the same selected entry after every key.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEntry } from '../types';
import { applyFolds, foldMark, isFoldable, segmentStart } from './fold';
import { renderFooter, renderOutline } from './outline';
import {
  createTreeSelectorState,
  selectedRow,
  treeSelectorReducer,
  type TreeSelectorAction,
  type TreeSelectorState,
} from './selection';
import { toViewEntries } from './view-entry';
import { ViewTree } from './view-tree';
import { assistantMsg } from '../../test/messages';
import * as pi16 from '../../test/pi16';

interface RefTreeList {
  handleInput(data: string): void;
  render(width: number): string[];
  getSelectedNode(): { entry: { id: string } } | undefined;
}
type RefManager = ReturnType<typeof pi16.SessionManager.inMemory>;

const WIDTH = 100_000;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const home = process.env.HOME || process.env.USERPROFILE || '';

/** The key presses, as the terminal sends them to pi and as Canopy's outline dispatches them. */
const KEYS = {
  ctrlLeft: { data: '\u001b[1;5D', action: { type: 'foldOrUp' } },
  ctrlRight: { data: '\u001b[1;5C', action: { type: 'unfoldOrDown' } },
  altLeft: { data: '\u001b[1;3D', action: { type: 'foldOrUp' } },
  altRight: { data: '\u001b[1;3C', action: { type: 'unfoldOrDown' } },
  up: { data: '\u001b[A', action: { type: 'move', delta: -1 } },
  down: { data: '\u001b[B', action: { type: 'move', delta: 1 } },
  cycle: { data: '\u000f', action: { type: 'cycleFilter', direction: 1 } },
  typeA: { data: 'a', action: { type: 'typeQuery', text: 'a' } },
  backspace: { data: '\u007f', action: { type: 'backspace' } },
  escape: { data: '\u001b', action: { type: 'escape' } },
} satisfies Record<string, { data: string; action: TreeSelectorAction }>;
type KeyName = keyof typeof KEYS;

let restoreClock: (() => void) | undefined;
beforeAll(() => {
  pi16.initTheme('dark');
  // pi's default bindings (no user file), as its interactive mode installs them.
  pi16.installPiKeybindings();
  // pi stamps entries with the current time; a fixed clock keeps sibling order deterministic.
  const realNow = Date.now;
  const RealDate = Date;
  let now = Date.parse('2026-11-20T09:00:00.000Z');
  Date.now = () => (now += 1000);
  globalThis.Date = class extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(Date.now());
      else super(...(args as [number]));
    }
  } as DateConstructor;
  restoreClock = () => {
    globalThis.Date = RealDate;
    Date.now = realNow;
  };
});
afterAll(() => restoreClock?.());

type Operation = { op: 'user' } | { op: 'assistant'; text: boolean } | { op: 'branch'; target: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.constant({ op: 'user' as const }),
  fc.record({ op: fc.constant('assistant' as const), text: fc.boolean() }),
  fc.record({ op: fc.constant('branch' as const), target: fc.nat() }),
);

function buildSession(ops: readonly Operation[]): RefManager {
  const sm = pi16.SessionManager.inMemory('/tmp/project');
  sm.appendMessage({ role: 'user', content: 'start', timestamp: 1 });
  let calls = 0;
  for (const op of ops) {
    if (op.op === 'user') sm.appendMessage({ role: 'user', content: 'a question', timestamp: 1 });
    else if (op.op === 'branch') {
      const entries = sm.getEntries();
      sm.branch(entries[op.target % entries.length]!.id);
    } else if (op.text) sm.appendMessage(assistantMsg('an answer') as never);
    else {
      const id = `call-${++calls}`;
      sm.appendMessage(
        assistantMsg('', {
          content: [{ type: 'toolCall', id, name: 'read', arguments: { path: 'a.ts' } }],
          stopReason: 'toolUse',
        }) as never,
      );
      sm.appendMessage({
        role: 'toolResult',
        toolCallId: id,
        toolName: 'read',
        content: [{ type: 'text', text: 'file' }],
        isError: false,
        timestamp: 1,
      } as never);
    }
  }
  return sm;
}

function canopyState(sm: RefManager): TreeSelectorState {
  const entries = sm.getEntries() as unknown as SessionEntry[];
  const tree = new ViewTree(toViewEntries(entries, (id) => sm.getLabel(id), { home }));
  return createTreeSelectorState(tree, { leafId: sm.getLeafId() });
}

function canopyLines(state: TreeSelectorState): string[] {
  return [
    ...renderOutline(state.rows, {
      selectedId: selectedRow(state)?.id ?? null,
      foldMarks: { indexById: state.indexById, folded: state.folded },
    }),
    renderFooter(state.selectedIndex, state.rows.length, state.mode),
  ];
}

function referenceList(sm: RefManager): RefTreeList {
  const size = sm.getEntries().length;
  const component = new pi16.TreeSelectorComponent(
    sm.getTree(),
    sm.getLeafId(),
    2 * size + 20,
    () => {},
    () => {},
  );
  return component.getTreeList() as unknown as RefTreeList;
}

/** Key presses after which something was folded: the random runs must exercise folds. */
let foldsSeen = 0;

/** Presses the keys on both, comparing the lines and the selection after each. */
function pressAndCompare(sm: RefManager, keys: readonly KeyName[]): TreeSelectorState {
  const reference = referenceList(sm);
  let state = canopyState(sm);
  const compare = (context: string) => {
    expect(canopyLines(state), context).toEqual(
      reference.render(WIDTH).map((line) => line.replace(ANSI, '')),
    );
    expect(selectedRow(state)?.id, context).toBe(reference.getSelectedNode()?.entry.id);
  };
  compare('at open');
  keys.forEach((key, i) => {
    reference.handleInput(KEYS[key].data);
    state = treeSelectorReducer(state, KEYS[key].action);
    if (state.hiddenByFold.size > 0) foldsSeen++;
    compare(`after key ${i} (${keys.slice(0, i + 1).join(' ')})`);
  });
  return state;
}

// start → q1 → a1 → (fork) q2 → a2 | q3 → a3: the fork at a1 has two segments.
function forkedSession(): RefManager {
  return buildSession([
    { op: 'assistant', text: true },
    { op: 'user' },
    { op: 'assistant', text: true },
    { op: 'branch', target: 1 },
    { op: 'user' },
    { op: 'assistant', text: true },
  ]);
}

describe('folding and segment jumps as pi 1.6.0’s tree selector does them', () => {
  it('folds the segment at the selection, marks it ⊞, and unfolds it again', () => {
    const sm = forkedSession();
    const state = pressAndCompare(sm, ['ctrlLeft', 'up', 'up', 'ctrlLeft', 'ctrlRight', 'ctrlRight']);
    expect(state.folded.size).toBe(0);
    const folded = pressAndCompare(sm, ['ctrlLeft']);
    // The leaf row starts no segment with children, so Ctrl+← moved up to its segment's start.
    expect(folded.folded.size).toBe(0);
    const atStart = pressAndCompare(sm, ['ctrlLeft', 'ctrlLeft']);
    expect(atStart.folded.size).toBe(1);
    expect(atStart.hiddenByFold.get([...atStart.folded][0]!)).toBe(1);
  });

  it('drops the folds on a filter change and on search input, as pi does', () => {
    const sm = forkedSession();
    const afterCycle = pressAndCompare(sm, ['ctrlLeft', 'ctrlLeft', 'cycle']);
    expect(afterCycle.folded.size).toBe(0);
    const afterSearch = pressAndCompare(sm, ['ctrlLeft', 'ctrlLeft', 'typeA', 'backspace', 'escape']);
    expect(afterSearch.folded.size).toBe(0);
  });

  it('matches pi on random sessions and key sequences', () => {
    const key = fc.constantFrom(...(Object.keys(KEYS) as KeyName[]));
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 1, maxLength: 24 }),
        fc.array(key, { maxLength: 14 }),
        (ops, keys) => {
          pressAndCompare(buildSession(ops), keys);
        },
      ),
      { numRuns: 150, seed: 4242 },
    );
    expect(foldsSeen).toBeGreaterThan(50);
  });
});

describe('fold helpers', () => {
  it('a folded row hides its whole subtree and nothing after it; the leaf mark moves onto it', () => {
    const sm = forkedSession();
    let state = canopyState(sm);
    // Select the first segment start below the fork (the active branch's q3) and fold it.
    state = treeSelectorReducer(state, { type: 'foldOrUp' });
    const foldedId = selectedRow(state)!.id;
    expect(isFoldable(state.rows, state.indexById, state.selectedIndex, state.folded)).toBe(true);
    state = treeSelectorReducer(state, { type: 'toggleFold', id: foldedId });
    expect(state.folded.has(foldedId)).toBe(true);
    expect(foldMark(state.rows, state.indexById, state.selectedIndex, state.folded)).toBe('folded');
    // The leaf was inside the fold: the folded row carries its mark.
    expect(state.leafFoldId).toBe(foldedId);
    expect(state.rows.some((row) => row.isLeaf)).toBe(false);
    // The other segment is still shown in full.
    expect(state.rows.length).toBe(canopyState(sm).rows.length - 1);
    state = treeSelectorReducer(state, { type: 'toggleFold', id: foldedId });
    expect([state.folded.size, state.leafFoldId]).toEqual([0, null]);
  });

  it('applyFolds leaves the rows alone when no visible row is folded', () => {
    const state = canopyState(forkedSession());
    expect(applyFolds(state.rows, new Set())).toBeNull();
    expect(applyFolds(state.rows, new Set(['not-an-entry']))).toBeNull();
  });

  it('segment jumps stop at the ends of the list', () => {
    const state = canopyState(forkedSession());
    const last = state.rows.length - 1;
    expect(segmentStart(state.rows, state.indexById, last, 'down', state.folded)).toBe(last);
    expect(segmentStart(state.rows, state.indexById, 0, 'up', state.folded)).toBe(0);
  });
});
