// What the fixture tests ask of a loaded session file: its bytes loaded by SessionManager, every node
// of its tree, and the entry on a given line.
import { SessionManager } from '../src/session-manager';
import type { SessionEntry, SessionTreeNode } from '../src/types';

/** Every node of the trees under `roots`, in no particular order. */
export function walk(roots: readonly SessionTreeNode[]): SessionTreeNode[] {
  const nodes: SessionTreeNode[] = [];
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    nodes.push(node);
    stack.push(...node.children);
  }
  return nodes;
}

/** Loads the bytes `readCopy` gives for `name` (a temporary copy of a fixture). */
export async function loadCopy(
  readCopy: (name: string) => Promise<Uint8Array>,
  name: string,
): Promise<{ session: SessionManager; bytes: Uint8Array }> {
  const bytes = await readCopy(name);
  return { session: SessionManager.fromJsonl(bytes), bytes };
}

/** The entry on a 1-based line of the file. */
export function entryOnLine(session: SessionManager, line: number): SessionEntry | undefined {
  return session.getEntries().find((entry) => session.getLine(entry.id) === line);
}
