// d3-hierarchy's tidy tree (`tree().nodeSize([dx, dy])`, Buchheim et al.'s Reingold–Tilford in
// linear time), ported to typed arrays and resumable. d3's version makes three objects per node
// (the datum, the hierarchy node, the tree node) and runs as one call: at 500,000 entries that was
// one long task and most of the layout's garbage. This port runs the same arithmetic in the same
// order over flat arrays, so its x coordinates are bit-for-bit d3's (tidyTree.test.ts compares them
// on random trees), and it yields between slices so the caller can spread it over tasks.
//
// The tree is given as each node's parent (-1 for a root), parents numbered before their children
// and siblings in number order; the roots hang from a virtual root, as the graph lays them out.

/** How many nodes a slice handles before the walk offers to yield. */
export const TIDY_SLICE = 4096;

/** Whether the node at `i` closes a slice of TIDY_SLICE nodes: a step function yields there. */
export function endsSlice(i: number): boolean {
  return (i & (TIDY_SLICE - 1)) === TIDY_SLICE - 1;
}

/**
 * Lays out the forest and writes each node's x (already scaled by `dx`) into `x`. A generator: it
 * yields every `TIDY_SLICE` nodes or so; drain it to run it at once.
 * `separation(sameParent)` is d3's separation of two neighbours (siblings or cousins).
 */
export function* tidyTreeSteps(
  parent: Int32Array,
  x: Float64Array,
  dx: number,
  separation: (sameParent: boolean) => number,
): Generator<void, void> {
  const count = parent.length;
  if (count === 0) return;
  // Node `count` is the virtual root, `count + 1` the dummy parent d3 hangs the root from.
  const root = count;
  const dummy = count + 1;
  const size = count + 2;
  const up = new Int32Array(size);
  const kidStart = new Int32Array(size + 1);
  for (let i = 0; i < count; i++) {
    const p = parent[i]!;
    up[i] = p < 0 ? root : p;
    kidStart[up[i]! + 1]!++;
  }
  up[root] = dummy;
  up[dummy] = -1;
  kidStart[dummy + 1]!++;
  for (let i = 0; i < size; i++) kidStart[i + 1]! += kidStart[i]!;
  const kids = new Int32Array(count + 1);
  const fill = kidStart.slice(0, size);
  const number = new Int32Array(size);
  for (let i = 0; i < count; i++) {
    const p = up[i]!;
    number[i] = fill[p]! - kidStart[p]!;
    kids[fill[p]!++] = i;
  }
  kids[fill[dummy]!++] = root;
  yield;

  const z = new Float64Array(size); // prelim
  const m = new Float64Array(size); // mod
  const c = new Float64Array(size); // change
  const s = new Float64Array(size); // shift
  const A = new Int32Array(size).fill(-1); // default ancestor
  const a = new Int32Array(size); // ancestor
  const t = new Int32Array(size).fill(-1); // thread
  for (let i = 0; i < size; i++) a[i] = i;

  const hasKids = (v: number) => kidStart[v + 1]! > kidStart[v]!;
  const nextLeft = (v: number) => (hasKids(v) ? kids[kidStart[v]!]! : t[v]!);
  const nextRight = (v: number) => (hasKids(v) ? kids[kidStart[v + 1]! - 1]! : t[v]!);
  const sep = (p: number, q: number) => separation(up[p] === up[q]);

  const moveSubtree = (wm: number, wp: number, shift: number) => {
    const change = shift / (number[wp]! - number[wm]!);
    c[wp] = c[wp]! - change;
    s[wp] = s[wp]! + shift;
    c[wm] = c[wm]! + change;
    z[wp] = z[wp]! + shift;
    m[wp] = m[wp]! + shift;
  };
  const executeShifts = (v: number) => {
    let shift = 0;
    let change = 0;
    for (let k = kidStart[v + 1]! - 1; k >= kidStart[v]!; k--) {
      const w = kids[k]!;
      z[w] = z[w]! + shift;
      m[w] = m[w]! + shift;
      shift += s[w]! + (change += c[w]!);
    }
  };
  const apportion = (v: number, w: number, ancestor: number): number => {
    if (w < 0) return ancestor;
    let vip = v;
    let vop = v;
    let vim = w;
    let vom = kids[kidStart[up[vip]!]!]!;
    let sip = m[vip]!;
    let sop = m[vop]!;
    let sim = m[vim]!;
    let som = m[vom]!;
    for (;;) {
      vim = nextRight(vim);
      vip = nextLeft(vip);
      if (vim < 0 || vip < 0) break;
      vom = nextLeft(vom);
      vop = nextRight(vop);
      a[vop] = v;
      const shift = z[vim]! + sim - z[vip]! - sip + sep(vim, vip);
      if (shift > 0) {
        const wm = up[a[vim]!] === up[v] ? a[vim]! : ancestor;
        moveSubtree(wm, v, shift);
        sip += shift;
        sop += shift;
      }
      sim += m[vim]!;
      sip += m[vip]!;
      som += m[vom]!;
      sop += m[vop]!;
    }
    if (vim >= 0 && nextRight(vop) < 0) {
      t[vop] = vim;
      m[vop] = m[vop]! + (sim - sop);
    }
    if (vip >= 0 && nextLeft(vom) < 0) {
      t[vom] = vip;
      m[vom] = m[vom]! + (sip - som);
      ancestor = v;
    }
    return ancestor;
  };
  const firstWalk = (v: number) => {
    const p = up[v]!;
    const w = number[v]! > 0 ? kids[kidStart[p]! + number[v]! - 1]! : -1;
    if (hasKids(v)) {
      executeShifts(v);
      const midpoint = (z[kids[kidStart[v]!]!]! + z[kids[kidStart[v + 1]! - 1]!]!) / 2;
      if (w >= 0) {
        z[v] = z[w]! + sep(v, w);
        m[v] = z[v]! - midpoint;
      } else z[v] = midpoint;
    } else if (w >= 0) z[v] = z[w]! + sep(v, w);
    A[p] = apportion(v, w, A[p]! >= 0 ? A[p]! : kids[kidStart[p]!]!);
  };

  // d3's eachAfter: a left-to-right post-order, the reverse of this right-to-left pre-order.
  const order = new Int32Array(count + 1);
  const stack = new Int32Array(count + 1);
  let top = 0;
  let written = 0;
  stack[top++] = root;
  while (top > 0) {
    const v = stack[--top]!;
    order[written++] = v;
    for (let k = kidStart[v]!; k < kidStart[v + 1]!; k++) stack[top++] = kids[k]!;
    if ((written & (TIDY_SLICE - 1)) === 0) yield;
  }
  for (let k = written - 1; k >= 0; k--) {
    firstWalk(order[k]!);
    if ((k & (TIDY_SLICE - 1)) === 0) yield;
  }
  m[dummy] = -z[root]!;
  // d3's eachBefore: any order with parents first; node numbers are one, after the virtual root.
  m[root] = m[root]! + m[dummy]!;
  for (let v = 0; v < count; v++) {
    const p = up[v]!;
    x[v] = (z[v]! + m[p]!) * dx;
    m[v] = m[v]! + m[p]!;
    if (endsSlice(v)) yield;
  }
}
