import { encodeNodes, type SessionChangedEvent, type TreeNode } from '@canopy/protocol';
import { computeRows, searchMaskColumns, ViewFlags } from '@canopy/session-core';
import { idIndexWork, readCountedChain } from '@canopy/session-core/testing';
import { describe, expect, it } from 'vitest';
import { applyServerEvent, emptyLiveState, type Applied, type LiveInput, type LiveState } from './live';
import { selectedIdOf } from './selectors';
import type { SnapshotPart } from '../net/snapshot';
import { head, listItem, node, PLAN_USAGE, sampleNodes, snapshotEnd, snapshotParts } from './testing';

function run(state: LiveState, inputs: readonly LiveInput[]): Applied {
  let applied: Applied = {
    state,
    notices: [],
    reload: false,
    changedIds: [],
    reveal: false,
  };
  for (const input of inputs) {
    const step = applyServerEvent(applied.state, input);
    applied = { ...step, notices: [...applied.notices, ...step.notices] };
  }
  return applied;
}

function snapshotInputs(nodes: readonly TreeNode[], leafId: string | null, selectedId: string | null = null) {
  return snapshotParts(nodes, leafId).map((part) => inputOf(part, selectedId));
}

function inputOf(part: SnapshotPart, selectedId: string | null = null): LiveInput {
  switch (part.kind) {
    case 'head':
      return { type: 'snapshot_head', head: part.head, selectedId, mode: 'default', pageSize: 20 };
    case 'nodes':
      return { type: 'snapshot_nodes', sessionId: 's1', nodes: part.nodes };
    case 'read':
      return { type: 'snapshot_read', sessionId: 's1', read: part.read };
    case 'end':
      return { type: 'snapshot_end', sessionId: 's1', end: part.end, changed: part.changed };
    case 'restart':
      throw new Error('a restart is for the tree slice to handle');
  }
}

function opened(nodes: readonly TreeNode[] = sampleNodes(), leafId: string | null = 'a4'): LiveState {
  return run(emptyLiveState(), snapshotInputs(nodes, leafId)).state;
}

function changed(fields: Partial<SessionChangedEvent>): SessionChangedEvent {
  return { type: 'session_changed', sessionId: 's1', source: 'external', ...fields };
}

const rowIds = (state: LiveState) => state.treeView?.rows.map((row) => row.id) ?? [];

describe('applyServerEvent: the streamed snapshot', () => {
  it('shows the head at once, the rows chunk by chunk, and selects the wanted entry once it has arrived', () => {
    const inputs = snapshotInputs(sampleNodes(), 'a4', 'u5');
    let state = applyServerEvent(emptyLiveState(), inputs[0]!).state;
    expect(state.session?.id).toBe('s1');
    expect(rowIds(state)).toEqual([]);
    expect(state.snapshot?.received).toBe(0);
    state = applyServerEvent(state, inputs[1]!).state;
    expect(state.treeView?.tree.size).toBe(3);
    expect(rowIds(state)).toEqual(['u1', 'a2', 'u3']);
    expect(state.snapshot?.received).toBe(3);
    state = applyServerEvent(state, inputs[2]!).state;
    expect(selectedIdOf(state)).toBe('u5');
    state = applyServerEvent(state, inputs[3]!).state;
    expect(state.snapshot).not.toBeNull();
    expect(state.treeView?.leafId).toBeNull();
    state = applyServerEvent(state, inputs[4]!).state;
    expect(state.snapshot).toBeNull();
    expect(state.treeView?.leafId).toBe('a4');
    expect(rowIds(state)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5', 'a6']);
    expect(selectedIdOf(state)).toBe('u5');
    expect((state.treeView?.tree.get('a2') as TreeNode).usage).toEqual(PLAN_USAGE);
  });

  it('selects the leaf when the wanted entry is not in the session', () => {
    const state = run(emptyLiveState(), snapshotInputs(sampleNodes(), 'a4', 'nope')).state;
    expect(selectedIdOf(state)).toBe('a4');
  });

  it('holds changes that arrive while the snapshot streams and applies them, in order, after the last chunk', () => {
    const inputs = snapshotInputs(sampleNodes(), 'a4');
    const early = run(emptyLiveState(), inputs.slice(0, 2)).state;
    const appended = changed({
      added: encodeNodes([node('u8', 'a4', 'message', 'user', 'user: more')]),
      leaf: { id: 'u8', previousId: 'a4' },
    });
    const waiting = applyServerEvent(early, appended).state;
    expect(waiting.treeView?.tree.has('u8')).toBe(false);
    expect(waiting.snapshot?.queued).toEqual([appended]);
    const done = run(waiting, inputs.slice(2)).state;
    expect(done.treeView?.tree.allEntries().map((entry) => entry.id)).toEqual([
      'u1',
      'a2',
      'u3',
      'a4',
      'u5',
      'a6',
      'm7',
      'u8',
    ]);
    expect(done.treeView?.leafId).toBe('u8');
  });

  it('with deferRows, holds the rows that fall due until snapshot_rows, and takes the closing line’s changed nodes before its leaf', () => {
    const nodes = sampleNodes();
    const labelled = { ...nodes[0]!, label: 'start here' } as TreeNode;
    const headInput = inputOf({ kind: 'head', head: head({ bytes: 500 }) }, 'u5');
    let state = applyServerEvent(emptyLiveState(), headInput).state;
    const part = (from: number, to: number): LiveInput => ({
      type: 'snapshot_nodes',
      sessionId: 's1',
      nodes: nodes.slice(from, to),
      deferRows: true,
    });
    // The first part's rows (the first screen) come at once.
    state = applyServerEvent(state, part(0, 1)).state;
    expect(rowIds(state)).toEqual(['u1']);
    const treeView = state.treeView;
    state = applyServerEvent(state, part(1, nodes.length)).state;
    expect(state.treeView).toBe(treeView);
    expect(state.snapshot).toMatchObject({ rowsDue: true, received: nodes.length, wantedId: 'u5' });
    const rows = applyServerEvent(state, { type: 'snapshot_rows', sessionId: 's1' });
    state = rows.state;
    expect(rows.reveal).toBe(true);
    expect(rowIds(state)).toEqual(['u1', 'a2', 'u3', 'a4', 'u5', 'a6']);
    expect(selectedIdOf(state)).toBe('u5');
    expect(state.snapshot).toMatchObject({ rowsDue: false, rowsAtSize: nodes.length, wantedId: null });
    const replaced = applyServerEvent(state, {
      type: 'snapshot_changed',
      sessionId: 's1',
      changed: [labelled],
    });
    expect(replaced.changedIds).toEqual(['u1']);
    expect(replaced.state.treeView).toBe(state.treeView);
    expect(replaced.state.treeView?.tree.get('u1')?.label).toBe('start here');
    const end = snapshotEnd('a4', nodes.length);
    state = applyServerEvent(replaced.state, inputOf({ kind: 'end', end, changed: [] })).state;
    expect(state.snapshot).toBeNull();
    expect(state.treeView?.leafId).toBe('a4');
    expect(selectedIdOf(state)).toBe('u5');
    expect(state.treeView?.rows[0]?.entry.label).toBe('start here');
  });

  it('takes the search masks that come with the nodes, so a search reads no entry’s text; nodes that were not all taken leave theirs out', () => {
    const texts = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 'needle' : 'hay'));
    const stream = (withDuplicate: boolean) => {
      const { entries, reads } = readCountedChain(texts, 'c');
      const nodes = entries as TreeNode[];
      let state = applyServerEvent(emptyLiveState(), inputOf({ kind: 'head', head: head() })).state;
      for (let at = 0; at < nodes.length; at += 16) {
        const part = nodes.slice(at, at + 16);
        // A node whose id came before is dropped by the tree: the part's masks no longer line up.
        if (withDuplicate && at === 16) part.splice(1, 0, nodes[0]!);
        const masks = searchMaskColumns(part);
        state = applyServerEvent(state, {
          type: 'snapshot_nodes',
          sessionId: 's1',
          nodes: part,
          masks,
        }).state;
      }
      reads.count = 0;
      const rows = computeRows(state.treeView!.tree, { leafId: 'c39', query: 'n' }).rows.map((row) => row.id);
      return { rows, reads: reads.count };
    };
    const needles = texts.flatMap((text, i) => (text === 'needle' ? [`c${i}`] : []));
    // One read: the leaf, whose visibility the rows test apart (it shows whatever the filter).
    expect(stream(false)).toEqual({ rows: needles, reads: 1 });
    // The first part's masks are taken; the later ones are not, and their entries are read.
    expect(stream(true)).toEqual({ rows: needles, reads: 40 - 16 + 1 });
  });

  it('makes room up front for the nodes of a session the server is still reading, from its listed entry count', () => {
    const count = 5000;
    const nodes = Array.from({ length: count }, (_, i) =>
      node(`n${i}`, i === 0 ? null : `n${i - 1}`, 'message', 'user', `row ${i}`),
    );
    // No nodeCount: the server has not finished its first read; the listing counted the entries.
    const started = inputOf({ kind: 'head', head: head({ session: listItem('s1', { entryCount: count }) }) });
    let state = applyServerEvent(emptyLiveState(), started).state;
    // Room is made once, with the head (the table made to size); no node makes it again.
    const before = idIndexWork.rehashes;
    for (let at = 0; at < count; at += 700)
      state = applyServerEvent(state, inputOf({ kind: 'nodes', nodes: nodes.slice(at, at + 700) })).state;
    expect(state.treeView?.tree.size).toBe(count);
    expect(state.treeView?.tree.indexOf(`n${count - 1}`)).toBe(count - 1);
    expect(idIndexWork.rehashes).toBe(before);
  });

  it('ignores nodes of a snapshot for another session than the one opened last', () => {
    const state = opened();
    const after = applyServerEvent(state, { type: 'snapshot_nodes', sessionId: 'other', nodes: [] });
    expect(after.state).toBe(state);
  });
});

describe('applyServerEvent: session_changed', () => {
  it('appends another process’s entries and moves the leaf, the selection following it', () => {
    const applied = applyServerEvent(
      opened(),
      changed({
        added: encodeNodes([node('u8', 'a4', 'message', 'user', 'user: more')]),
        leaf: { id: 'u8', previousId: 'a4' },
        writerActive: true,
      }),
    );
    expect(rowIds(applied.state)).toContain('u8');
    expect(applied.state.treeView?.leafId).toBe('u8');
    expect(selectedIdOf(applied.state)).toBe('u8');
    // Kept once, on the open session's row.
    expect(applied.state.session?.item.writerActive).toBe(true);
    expect(applied.reveal).toBe(true);
  });

  it('leaves the selection alone for Canopy’s own writes (the action that wrote selects)', () => {
    const state = opened();
    const applied = applyServerEvent(
      state,
      changed({
        source: 'canopy',
        added: encodeNodes([node('u8', 'a4', 'message', 'user', 'user: more')]),
        leaf: { id: 'u8', previousId: 'a4' },
      }),
    );
    expect(applied.state.treeView?.leafId).toBe('u8');
    expect(selectedIdOf(applied.state)).toBe('a4');
    expect(applied.reveal).toBe(false);
  });

  it('replaces a tool result’s row when its call arrives after it (the text it shows changes)', () => {
    const early = node('r9', 'a6', 'message', 'toolResult', 'tool result');
    const state = opened([...sampleNodes(), early], 'r9');
    const late = { ...early, text: 'read: src/app.ts', search: 'toolresult read: src/app.ts' };
    const applied = applyServerEvent(state, changed({ changed: encodeNodes([late]) }));
    expect(applied.state.treeView?.tree.get('r9')).toEqual(late);
    const row = applied.state.treeView?.rows.find((r) => r.id === 'r9');
    expect(row?.entry.text).toBe('read: src/app.ts');
    expect(applied.changedIds).toEqual(['r9']);
    expect(applied.state.treeView?.treeVersion).toBe(applied.state.treeView?.tree.version);
  });

  it('keeps the detail of an archive record’s target (only its flag changed), not of a target changed otherwise too', () => {
    const state = opened();
    const target = state.treeView!.tree.get('u5') as TreeNode;
    const archived = { ...target, flags: target.flags | ViewFlags.ArchiveTarget };
    const record = node('c8', 'a4', 'custom', undefined, '');
    const applied = applyServerEvent(
      state,
      changed({ source: 'canopy', added: encodeNodes([record]), changed: encodeNodes([archived]) }),
    );
    expect(applied.state.treeView?.tree.archiveStateOf('u5')).not.toBe(0);
    expect(applied.changedIds).toEqual([]);
    // Restored and labelled in one event: the label is new to the detail.
    const labelled = { ...target, label: 'kept' };
    const again = applyServerEvent(applied.state, changed({ changed: encodeNodes([labelled]) }));
    expect(again.state.treeView?.tree.archiveStateOf('u5')).toBe(0);
    expect(again.changedIds).toEqual(['u5']);
  });

  it('sets and clears a label through a changed row, and the label filter follows', () => {
    const state = opened();
    const labelled = { ...state.treeView!.tree.get('u3')!, label: 'milestone' };
    const withLabel = run(state, [
      changed({
        source: 'canopy',
        added: encodeNodes([node('l9', 'a4', 'label', undefined, '[label: milestone]')]),
        changed: encodeNodes([labelled]),
        leaf: { id: 'l9', previousId: 'a4' },
      }),
      { type: 'subscribed', sessionId: 's1', leafId: 'l9' },
    ]).state;
    expect(withLabel.treeView?.tree.get('u3')?.label).toBe('milestone');
    const unlabelled: TreeNode = { ...labelled };
    delete unlabelled.label;
    const cleared = applyServerEvent(withLabel, changed({ changed: encodeNodes([unlabelled]) })).state;
    expect(cleared.treeView?.tree.get('u3')?.label).toBeUndefined();
  });

  it('keeps a node’s usage numbers with its entry, and drops them when a replaced row has none', () => {
    const state = opened();
    const plan: TreeNode = { ...state.treeView!.tree.get('a2')! };
    expect(plan.usage).toEqual(PLAN_USAGE);
    delete plan.usage;
    const applied = applyServerEvent(state, changed({ changed: encodeNodes([plan]) }));
    expect((applied.state.treeView?.tree.get('a2') as TreeNode).usage).toBeUndefined();
  });

  it('returns a leaf notice as a message, moving the selection with the leaf', () => {
    const applied = applyServerEvent(
      opened(),
      changed({
        leaf: {
          id: 'a6',
          previousId: 'a4',
          notice: { reason: 'file-changed', message: 'The leaf moved: the file changed under it' },
        },
      }),
    );
    expect(applied.notices).toEqual(['The leaf moved: the file changed under it']);
    expect(applied.state.treeView?.leafId).toBe('a6');
    expect(selectedIdOf(applied.state)).toBe('a6');
  });

  it('asks for a new snapshot when the leaf moves to an entry it never received', () => {
    const applied = applyServerEvent(opened(), changed({ leaf: { id: 'ghost', previousId: 'a4' } }));
    expect(applied.reload).toBe(true);
    expect(applied.state.treeView?.leafId).toBe('a4');
  });

  it('changes nothing for another session', () => {
    const state = opened();
    const applied = applyServerEvent(state, {
      ...changed({ added: encodeNodes([node('x1', null, 'message', 'user', 'x')]) }),
      sessionId: 'other',
    });
    expect(applied.state).toBe(state);
    expect(state.treeView?.tree.has('x1')).toBe(false);
  });
});

describe('applyServerEvent: reloads', () => {
  it('asks for a new snapshot and says why when the file was rewritten', () => {
    const applied = applyServerEvent(opened(), {
      type: 'session_reloaded',
      sessionId: 's1',
      reason: 'truncated',
    });
    expect(applied.reload).toBe(true);
    expect(applied.notices).toEqual(['The session file was truncated; reloaded']);
  });

  it('completes a snapshot of no nodes at its closing line', () => {
    const started = applyServerEvent(emptyLiveState(), {
      type: 'snapshot_head',
      head: head(),
      selectedId: null,
      mode: 'default',
      pageSize: 20,
    });
    expect(started.state.snapshot).not.toBeNull();
    const applied = applyServerEvent(started.state, {
      type: 'snapshot_end',
      sessionId: 's1',
      end: snapshotEnd(null, 0),
      changed: [],
    });
    expect(applied.state.snapshot).toBeNull();
    expect(rowIds(applied.state)).toEqual([]);
  });

  it('shows the first rows before the leaf is known, then takes the closing line: changed rows, the leaf selected and revealed, the head', () => {
    const nodes = sampleNodes();
    const unlabelled = nodes.map((one) => ({ ...one, label: undefined }) as TreeNode);
    // The server sent u1 before the label entry that names it was read.
    const labelled = { ...unlabelled[0]!, label: 'start here' } as TreeNode;
    let state = applyServerEvent(
      emptyLiveState(),
      inputOf({ kind: 'head', head: head({ bytes: 500 }) }),
    ).state;
    state = applyServerEvent(state, inputOf({ kind: 'nodes', nodes: unlabelled.slice(0, 4) })).state;
    expect(rowIds(state)).toEqual(['u1', 'a2', 'u3', 'a4']);
    state = applyServerEvent(state, inputOf({ kind: 'read', read: 250 })).state;
    expect(state.snapshot).toMatchObject({ bytes: 500, read: 250, received: 4, total: null });
    expect(state.treeView?.leafId).toBeNull();
    state = applyServerEvent(state, inputOf({ kind: 'nodes', nodes: unlabelled.slice(4) })).state;
    const end = snapshotEnd('a4', nodes.length, {
      issues: [{ line: 3, kind: 'invalid-json', message: 'bad' }],
    });
    const applied = applyServerEvent(state, inputOf({ kind: 'end', end, changed: [labelled] }));
    expect(applied.state.snapshot).toBeNull();
    expect(applied.state.treeView?.leafId).toBe('a4');
    expect(selectedIdOf(applied.state)).toBe('a4');
    expect(applied.reveal).toBe(true);
    expect(applied.changedIds).toEqual(['u1']);
    expect(applied.state.treeView?.tree.get('u1')?.label).toBe('start here');
    expect(applied.state.session?.issues).toEqual(end.issues);
  });
});

describe('applyServerEvent: a legacy file', () => {
  it('stops saying "the first write migrates it" once the file was written, without a reopen (issue 45)', () => {
    const inputs = snapshotInputs(sampleNodes(), 'a4').map((input) =>
      input.type === 'snapshot_end' ? { ...input, end: { ...input.end, needsMigration: true } } : input,
    );
    const legacy = run(emptyLiveState(), inputs).state;
    expect(legacy.session?.needsMigration).toBe(true);
    // A leaf move alone writes nothing: still legacy.
    const moved = applyServerEvent(
      legacy,
      changed({ source: 'canopy', leaf: { id: 'a4', previousId: 'a4' } }),
    ).state;
    expect(moved.session?.needsMigration).toBe(true);
    const written = applyServerEvent(
      legacy,
      changed({ source: 'canopy', added: encodeNodes([node('n1', 'a4', 'message', 'user', 'next')]) }),
    ).state;
    expect(written.session?.needsMigration).toBe(false);
  });
});
