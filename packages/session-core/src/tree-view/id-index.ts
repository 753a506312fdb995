// The position of every id in a ViewTree, in place of a `Map<string, number>`. A Map of 100,000+
// ids grows by rehashing every entry into a new table in one go: at 131,072 ids that one insert
// took 30-50 ms in Node and 65-120 ms inside a snapshot part's append in the browser (docs/
// architecture.md#opening-a-session), a long task on its own. Here the table is typed arrays and
// each id's hash is kept, so growing is one tight loop over integers, and a tree that knows how
// many entries are coming (`reserve`) never grows at all while they arrive.

/** FNV-1a over the UTF-16 code units: cheap for the short ids sessions use, and well spread. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash;
}

const MIN_SLOTS = 1024;

/** Internal, for tests: how many times a table was made anew with every id placed again. */
export const idIndexWork = { rehashes: 0 };

/**
 * Ids in insertion order, each at its position (0, 1, 2, …), found by id. Insert-only. The ids
 * themselves stay where the owner keeps them (`idAt`): a second array of them would be one more
 * large array to grow.
 */
export class IdIndex {
  private count = 0;
  /** Hash of each id, by position: growing needs no string read. */
  private hashes: Int32Array = new Int32Array(MIN_SLOTS / 2);
  /** Open addressing, linear probing, at most half full: position + 1, or 0 for an empty slot. */
  private slots: Int32Array = new Int32Array(MIN_SLOTS);

  /** `idAt(position)` answers the id added at that position (the owner's own list). */
  constructor(private readonly idAt: (position: number) => string) {}

  get size(): number {
    return this.count;
  }

  /** The position of `id`, or -1. */
  indexOf(id: string): number {
    if (typeof id !== 'string') return -1;
    const { slots, hashes, idAt } = this;
    const hash = hashOf(id);
    const mask = slots.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const slot = slots[at]!;
      if (slot === 0) return -1;
      // The kept hash first: reading the owner's id is a walk to another object, for every probe.
      if (hashes[slot - 1] === hash && idAt(slot - 1) === id) return slot - 1;
    }
  }

  /**
   * Adds `id` at the next position (`size`) and answers it, or answers -1 if `id` is already in.
   * The owner stores the id at that position before the next call (`idAt` must find it).
   */
  add(id: string): number {
    const hash = hashOf(id);
    const { slots, hashes, idAt } = this;
    const mask = slots.length - 1;
    let at = hash & mask;
    for (; ; at = (at + 1) & mask) {
      const slot = slots[at]!;
      if (slot === 0) break;
      if (hashes[slot - 1] === hash && idAt(slot - 1) === id) return -1;
    }
    const index = this.count++;
    if (index >= this.hashes.length) this.hashes = grown(this.hashes, index + 1);
    this.hashes[index] = hash;
    slots[at] = index + 1;
    if (this.count * 2 > slots.length) this.rehash(this.count);
    return index;
  }

  /** Makes room for `count` ids in all, so that adding up to that many never rehashes. */
  reserve(count: number): void {
    if (count > this.hashes.length) this.hashes = grown(this.hashes, count);
    if (count * 2 > this.slots.length) this.rehash(count);
  }

  /** Forgets every id but keeps the room (a rebuild puts as many back; `reserve` holds). */
  clear(): void {
    // Empty, every slot is 0 already. The first chunk of a snapshot builds a tree reserved for
    // all its entries: filling that table touched every page of it (7-10 ms at 200,000 entries
    // in Node, 36 ms traced in the browser) in the task that shows the first rows.
    if (this.count === 0) return;
    this.count = 0;
    this.slots.fill(0);
  }

  /** A table with more than twice `count` slots, every id placed again from its kept hash. */
  private rehash(count: number): void {
    idIndexWork.rehashes++;
    let length = this.slots.length;
    while (count * 2 >= length) length *= 2;
    const slots = new Int32Array(length);
    const mask = length - 1;
    const hashes = this.hashes;
    for (let index = 0; index < this.count; index++) {
      let at = hashes[index]! & mask;
      while (slots[at] !== 0) at = (at + 1) & mask;
      slots[at] = index + 1;
    }
    this.slots = slots;
  }
}

/** A copy of `array` with room for at least `count` values (doubling, so adds stay amortised O(1)). */
function grown(array: Int32Array, count: number): Int32Array {
  let length = array.length;
  while (length < count) length *= 2;
  const next = new Int32Array(length);
  next.set(array);
  return next;
}
