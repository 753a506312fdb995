import type { TreeNode } from '@canopy/protocol';
import type { TreeModel } from './tree-model';

/**
 * The first read of a session file while it runs (docs/architecture.md#opening-a-session): the
 * nodes rendered so far and the bytes read, so that a snapshot can stream them before the session
 * is open. Every snapshot requested meanwhile watches the same load; none starts another.
 *
 * The nodes are the tree model's as received, before the end of the load puts on their labels and
 * re-renders tool results read before their call: a snapshot sends those again in its closing line.
 */
export class LoadProgress {
  /** The file's size when the read started (an archive's size on disk). */
  bytes = 0;
  /** Bytes read so far. */
  read = 0;
  /** The read is over (the session is open, or the open failed). */
  ended = false;
  private tree: TreeModel | undefined;
  private waiters: Array<() => void> = [];

  /** The nodes received so far, in file order (a live view: it grows as the read goes on). */
  get nodes(): readonly TreeNode[] {
    return this.tree?.all ?? [];
  }

  /** The read of `bytes` bytes starts, into `tree`. */
  started(tree: TreeModel, bytes: number): void {
    this.tree = tree;
    this.bytes = bytes;
    this.wake();
  }

  /** A piece was read and its entries received. */
  advanced(read: number): void {
    this.read = read;
    this.wake();
  }

  /** The read is over, however it ended: nothing of it is watched any more. */
  end(): void {
    this.ended = true;
    this.tree = undefined;
    this.wake();
  }

  /** Resolves at the next piece or at the end (at once if the read is over). */
  next(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
