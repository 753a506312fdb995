// The session browser's list: search over name, first message, cwd and path, and the families
// (`parentSession`, oh-my-pi's subagents) shown as an indented tree so a /branch or /fork result
// sits under its source.

import type { SessionListItem } from '@canopy/protocol';
import { latestInSubtrees } from '@canopy/session-core';

export interface SessionRow {
  session: SessionListItem;
  /** Nesting under the lineage parent, 0 for sessions without a (listed) parent. */
  depth: number;
}

export function sessionTitle(session: SessionListItem): string {
  return session.name?.trim() || session.firstMessage.trim() || '(no messages)';
}

/** Whitespace tokens, case-insensitive, every token must match one of the searchable fields. */
export function matchesSessionQuery(session: SessionListItem, query: string): boolean {
  const tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (tokens.length === 0) return true;
  const haystack = [session.name ?? '', session.firstMessage, session.cwd, session.path, session.root]
    .join(' ')
    .toLowerCase();
  return tokens.every((token) => haystack.includes(token));
}

/**
 * Orders families as pi's threaded `/resume` does (docs/archive-and-family.md#family-of-a-session):
 * each child directly under its parent, families and siblings by the newest activity anywhere in
 * their subtree, newest first. When searching, matches are listed flat (a child matching without
 * its parent must still show).
 */
export function sessionRows(sessions: readonly SessionListItem[], query: string): SessionRow[] {
  const byMtime = [...sessions].sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
  if (query.trim()) {
    return byMtime.filter((s) => matchesSessionQuery(s, query)).map((session) => ({ session, depth: 0 }));
  }
  const ids = new Set(byMtime.map((s) => s.id));
  const children = new Map<string, SessionListItem[]>();
  const tops: SessionListItem[] = [];
  for (const session of byMtime) {
    const parent = session.parentId;
    if (parent && parent !== session.id && ids.has(parent)) {
      const list = children.get(parent) ?? [];
      list.push(session);
      children.set(parent, list);
    } else tops.push(session);
  }
  const latest = latestInSubtrees(
    byMtime,
    (session) => session.id,
    (session) => session.mtime,
    (session) => children.get(session.id) ?? [],
  );
  const byLatest = (a: SessionListItem, b: SessionListItem) =>
    latest.get(b.id)! - latest.get(a.id)! || b.mtime - a.mtime || a.path.localeCompare(b.path);
  tops.sort(byLatest);
  for (const list of children.values()) list.sort(byLatest);
  const rows: SessionRow[] = [];
  const seen = new Set<string>();
  const stack: SessionRow[] = tops.map((session) => ({ session, depth: 0 })).reverse();
  while (stack.length > 0) {
    const row = stack.pop()!;
    if (seen.has(row.session.id)) continue;
    seen.add(row.session.id);
    rows.push(row);
    const kids = children.get(row.session.id) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ session: kids[i]!, depth: row.depth + 1 });
  }
  // A lineage cycle (a → b → a) leaves its members unreached; list them at the top level.
  for (const session of byMtime) if (!seen.has(session.id)) rows.push({ session, depth: 0 });
  return rows;
}

/** The chain of ancestors of a session, nearest first, as far as they are listed. */
export function lineageOf(sessions: readonly SessionListItem[], id: string): SessionListItem[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const chain: SessionListItem[] = [];
  const seen = new Set<string>([id]);
  let parent = byId.get(id)?.parentId ?? null;
  while (parent && !seen.has(parent)) {
    seen.add(parent);
    const session = byId.get(parent);
    if (!session) break;
    chain.push(session);
    parent = session.parentId;
  }
  return chain;
}

/**
 * Sessions branched or forked from the given one. oh-my-pi's subagent and advisor transcripts also
 * name it as parent, but they are not branches of it.
 */
export function childSessionsOf(sessions: readonly SessionListItem[], id: string): SessionListItem[] {
  return sessions.filter((s) => s.parentId === id && s.id !== id && s.kind === undefined);
}

/**
 * What the session browser says when it lists nothing and no search is typed: the folders it read
 * (their short names), so a user who started Canopy on the wrong folder sees which one it was.
 * `roots` is undefined until the server's info has arrived.
 */
export function emptyListText(roots: readonly { name: string }[] | undefined): string {
  if (roots === undefined) return 'No sessions under the roots.';
  if (roots.length === 0) return 'No session folder to read: none of the paths Canopy was given exists.';
  return `No sessions in ${roots.map((root) => root.name).join(', ')}.`;
}
