// The model of one open session, kept in step: its SessionManager, the TreeModel of every entry's
// node and the list row's entry facts (the index does not read an open file). The manager hands
// every new entry, in full and once, to the model's one listener (`receive`, its `onEntries`); every
// other step answers by return value, so an appended line's change comes back to the open session
// whole (docs/architecture.md#path-of-an-event).
import type { SessionEntry, SessionManager } from '@canopy/session-core';
import type { FileState } from '../files/confined';
import type { StoredLeaf } from '../files/state';
import { countEntries, emptyRowFacts, type RowFacts } from '../list/list-row';
import { followLeaf, leafRecord, restoreLeaf, type LeafNotice } from './leaf-position';
import type { SessionChange } from './session-events';
import { TreeModel, type TreeDelta } from './tree-model';

export class SessionModel {
  readonly tree: TreeModel;
  private facts: RowFacts = emptyRowFacts();
  private manager: SessionManager | undefined;

  constructor(home: string) {
    this.tree = new TreeModel(home);
  }

  /** The manager's `onEntries`: every new entry in full, once, as it is indexed. */
  readonly receive = (entries: readonly SessionEntry[], firstIndex: number): void => {
    if (firstIndex === 0) this.facts = emptyRowFacts();
    this.tree.receive(entries, firstIndex);
    countEntries(this.facts, entries);
  };

  /** The manager built with `receive` as its listener (set once, when its first read ends). */
  attach(sm: SessionManager): void {
    this.manager = sm;
  }

  /** Has its first read ended (is there a manager)? */
  get ready(): boolean {
    return this.manager !== undefined;
  }

  get sm(): SessionManager {
    if (!this.manager) throw new Error('internal: the session model has no manager yet');
    return this.manager;
  }

  /** The list row's entry facts, a copy. */
  get rowFacts(): RowFacts {
    return { ...this.facts };
  }

  /**
   * Takes bytes another writer appended: ingested, the leaf follows the writer if it continued from
   * Canopy's leaf, and the nodes are brought up to date. Answers the change and whether entries came.
   */
  ingest(bytes: Buffer): { change: Omit<SessionChange, 'writerActive'>; entries: number } {
    const sm = this.sm;
    const { entries } = sm.ingest(bytes);
    if (entries.length === 0) return { change: {}, entries: 0 };
    const previousId = sm.getLeafId();
    const change: Omit<SessionChange, 'writerActive'> = {};
    if (followLeaf(sm, entries)) change.leaf = { id: sm.getLeafId(), previousId };
    change.delta = this.sync();
    return { change, entries: entries.length };
  }

  /** Brings the tree model up to date with the manager and answers what changed. */
  sync(): TreeDelta {
    return this.tree.sync(this.sm);
  }

  /** Puts the leaf back where it was stored (or where it was before a reload); a notice if it cannot. */
  restoreLeaf(
    stored: StoredLeaf | undefined,
    previousLeaf: string | null | undefined,
  ): LeafNotice | undefined {
    return restoreLeaf(this.sm, this.tree.all, stored, previousLeaf);
  }

  /** The leaf as the state folder stores it, valid for the file read up to `offset` in `state`. */
  leafRecord(offset: number, state: FileState): StoredLeaf {
    return leafRecord(this.sm, this.tree.all.length, offset, state);
  }
}
