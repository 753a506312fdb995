// The family of a session across files (docs/archive-and-family.md#family-of-a-session): which file
// came from which, of what kind, and the entry each child is grafted at. Built from bounded facts
// about each file (its header and the first entries' ids), never from whole files, so a family of
// hundreds of thousands of entries is built from a few kilobytes per file. Pure: the caller reads
// the files and resolves paths; nothing here is cached between calls. One file because the head
// reader, the graft rule and the forest share one notion of "copied entry" and one head shape.

import { userMessageText } from './text';

/** One entry at the head of a file, in file order. */
export interface FamilyHeadEntry {
  id: string;
  parentId: string | null;
  /** The entry's ISO timestamp, when it has one. */
  timestamp?: string;
}

/** What a bounded read of one file's head tells about it. */
export interface FamilyFileHead {
  /** An opaque key naming the file (the server's session id). */
  key: string;
  /** The file's absolute path, as the caller compares paths. */
  file: string;
  /** The header's session id. */
  sessionId?: string;
  /** The header's timestamp (ISO): entries a fork copied are older than it. */
  headerTimestamp?: string;
  /**
   * The parent named by the header's `parentSession`: a path (pi) already resolved by the caller
   * to an absolute path, or a session id (oh-my-pi's `forkFrom`).
   */
  parentPath?: string;
  parentSessionId?: string;
  /** [oh-my-pi] A subagent or advisor transcript: its parent's candidate files, nearest first. */
  folder?: { kind: 'subagent' | 'advisor'; parents: readonly string[] };
  /** An archived `.jsonl.gz` session. */
  archived: boolean;
  /** The first entries of the file, in file order (bounded). */
  head: readonly FamilyHeadEntry[];
  /** The first user message it wrote itself, when read (ParsedFamilyHead). */
  ownFirstMessage?: string;
  /** Whether `head` holds every entry of the file. */
  headComplete: boolean;
  entryCount: number;
  /** Unix ms of the file's last change. */
  lastActivity: number;
}

/** How a file came from its parent. */
export type FamilyKind = 'root' | 'fork' | 'clone' | 'continuation' | 'subagent' | 'advisor';
export const FAMILY_KINDS: readonly FamilyKind[] = [
  'root',
  'fork',
  'clone',
  'continuation',
  'subagent',
  'advisor',
];

/**
 * Whether a child of this kind holds its graft entry too (pi's /fork and /clone copy the parent's
 * entries with their ids): then the child opens at it. A subagent's or an advisor's graft is an entry
 * of the parent only (the task call that started it, the entry written before it).
 */
export function graftInChild(kind: FamilyKind): boolean {
  return kind === 'fork' || kind === 'clone';
}

export type FamilyProblemCode =
  | 'missing-parent'
  | 'moved-parent'
  | 'cycle'
  | 'graft-beyond-head'
  /** A subagent or advisor whose place in its parent was not found (docs/archive-and-family.md#subagent-lanes). */
  | 'call-site-not-found';
export const FAMILY_PROBLEM_CODES: readonly FamilyProblemCode[] = [
  'missing-parent',
  'moved-parent',
  'cycle',
  'graft-beyond-head',
  'call-site-not-found',
];

export interface FamilyProblem {
  code: FamilyProblemCode;
  message: string;
}

export interface FamilyMember {
  key: string;
  parentKey: string | null;
  kind: FamilyKind;
  /** The last entry this file shares with its parent: where it is grafted; null when none is shared. */
  graftId: string | null;
  /** Nesting in the family tree, 0 for a root. */
  depth: number;
  /** The newest activity in this file and every file below it. */
  latestActivity: number;
  problems: FamilyProblem[];
}

/** Every family, in pi's threaded `/resume` order: a parent before its children, newest activity first. */
export interface FamilyForest {
  members: FamilyMember[];
}

/** pi names a session file `<timestamp>_<session id>.jsonl`: the id, when the name has that form. */
export function sessionIdFromFileName(file: string): string | undefined {
  const name = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const match = /_([A-Za-z0-9-]+)\.jsonl(?:\.gz)?$/.exec(name);
  return match?.[1];
}

interface Link {
  parent: FamilyFileHead;
  problem?: FamilyProblem;
}

/** The parent a head names, and what was wrong in finding it. */
function linkOf(
  head: FamilyFileHead,
  byFile: ReadonlyMap<string, FamilyFileHead>,
  bySessionId: ReadonlyMap<string, FamilyFileHead[]>,
): { link?: Link; problem?: FamilyProblem } {
  const other = (candidates: FamilyFileHead[] | undefined) => candidates?.find((c) => c !== head);
  if (head.folder) {
    for (const candidate of head.folder.parents) {
      const parent = byFile.get(candidate);
      if (parent && parent !== head) return { link: { parent } };
    }
  }
  if (head.parentPath !== undefined) {
    const direct = byFile.get(head.parentPath);
    if (direct && direct !== head) return { link: { parent: direct } };
    const id = sessionIdFromFileName(head.parentPath);
    const moved = id === undefined ? undefined : other(bySessionId.get(id));
    if (moved) {
      return {
        link: {
          parent: moved,
          problem: {
            code: 'moved-parent',
            message: `The parent ${head.parentPath} is gone; the file with its session id is used.`,
          },
        },
      };
    }
    return {
      problem: { code: 'missing-parent', message: `The parent ${head.parentPath} is not under the roots.` },
    };
  }
  if (head.parentSessionId !== undefined) {
    const parent = other(bySessionId.get(head.parentSessionId));
    if (parent) return { link: { parent } };
    return {
      problem: {
        code: 'missing-parent',
        message: `No file under the roots has the parent session id ${head.parentSessionId}.`,
      },
    };
  }
  return {};
}

/**
 * Where `child` is grafted on `parent`, and how it was copied. An entry is shared when the parent's
 * head holds its id; past the parent's bounded head, an entry older than the child's header counts
 * as copied (pi's forks keep the original ids and timestamps and write the header at fork time).
 */
export function graftOf(
  child: FamilyFileHead,
  parent: FamilyFileHead,
): { graftId: string | null; chain: boolean; beyondHead: boolean } {
  const parentIds = new Set(parent.head.map((entry) => entry.id));
  let graftId: string | null = null;
  let chain = true;
  let sharedCount = 0;
  for (const entry of child.head) {
    const copied =
      parentIds.has(entry.id) ||
      (!parent.headComplete &&
        child.headerTimestamp !== undefined &&
        entry.timestamp !== undefined &&
        entry.timestamp < child.headerTimestamp);
    if (!copied) continue;
    if (entry.parentId !== graftId) chain = false;
    graftId = entry.id;
    sharedCount++;
  }
  const beyondHead = !child.headComplete && sharedCount > 0 && sharedCount === child.head.length;
  return { graftId, chain, beyondHead };
}

/**
 * Builds every family of the given files. Missing and moved parents, and cycles (a → b → a: the
 * member with the smallest key becomes a root), are reported on the member, never thrown.
 */
export function buildFamilyForest(heads: readonly FamilyFileHead[]): FamilyForest {
  const byFile = new Map<string, FamilyFileHead>();
  const bySessionId = new Map<string, FamilyFileHead[]>();
  for (const head of heads) {
    byFile.set(head.file, head);
    if (head.sessionId !== undefined) {
      const list = bySessionId.get(head.sessionId) ?? [];
      list.push(head);
      bySessionId.set(head.sessionId, list);
    }
  }
  const links = new Map<string, Link | undefined>();
  const problems = new Map<string, FamilyProblem[]>();
  const addProblem = (key: string, problem: FamilyProblem) => {
    const list = problems.get(key) ?? [];
    list.push(problem);
    problems.set(key, list);
  };
  for (const head of heads) {
    const { link, problem } = linkOf(head, byFile, bySessionId);
    links.set(head.key, link);
    if (problem) addProblem(head.key, problem);
    if (link?.problem) addProblem(head.key, link.problem);
  }
  breakCycles(heads, links, addProblem);

  const children = new Map<string, FamilyFileHead[]>();
  const roots: FamilyFileHead[] = [];
  for (const head of heads) {
    const link = links.get(head.key);
    if (!link) roots.push(head);
    else {
      const list = children.get(link.parent.key) ?? [];
      list.push(head);
      children.set(link.parent.key, list);
    }
  }
  const latest = latestInSubtrees(
    heads,
    (head) => head.key,
    (head) => head.lastActivity,
    (head) => children.get(head.key) ?? [],
  );
  const byActivity = (a: FamilyFileHead, b: FamilyFileHead) =>
    latest.get(b.key)! - latest.get(a.key)! || a.file.localeCompare(b.file);

  const members: FamilyMember[] = [];
  const stack = [...roots]
    .sort(byActivity)
    .reverse()
    .map((head) => ({ head, depth: 0 }));
  while (stack.length > 0) {
    const { head, depth } = stack.pop()!;
    const link = links.get(head.key);
    const memberProblems = problems.get(head.key) ?? [];
    let kind: FamilyKind = 'root';
    let graftId: string | null = null;
    if (link) {
      if (head.folder && head.folder.parents.includes(link.parent.file)) kind = head.folder.kind;
      else {
        const graft = graftOf(head, link.parent);
        graftId = graft.graftId;
        kind = graftId === null ? 'continuation' : graft.chain ? 'fork' : 'clone';
        if (graft.beyondHead) {
          memberProblems.push({
            code: 'graft-beyond-head',
            message: 'Every entry read at the head is shared with the parent: the graft may be further down.',
          });
        }
      }
    }
    members.push({
      key: head.key,
      parentKey: link?.parent.key ?? null,
      kind,
      graftId,
      depth,
      latestActivity: latest.get(head.key)!,
      problems: memberProblems,
    });
    const kids = [...(children.get(head.key) ?? [])].sort(byActivity);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ head: kids[i]!, depth: depth + 1 });
  }
  return { members };
}

/** Cuts every parent cycle at its member with the smallest key, which becomes a root. */
function breakCycles(
  heads: readonly FamilyFileHead[],
  links: Map<string, Link | undefined>,
  addProblem: (key: string, problem: FamilyProblem) => void,
): void {
  const state = new Map<string, 'walking' | 'done'>();
  for (const start of heads) {
    const path: FamilyFileHead[] = [];
    let head: FamilyFileHead | undefined = start;
    while (head && !state.has(head.key)) {
      state.set(head.key, 'walking');
      path.push(head);
      head = links.get(head.key)?.parent;
    }
    if (head && state.get(head.key) === 'walking') {
      const cycle = path.slice(path.indexOf(head));
      const cut = cycle.reduce((a, b) => (b.key < a.key ? b : a));
      links.set(cut.key, undefined);
      for (const member of cycle) {
        addProblem(member.key, {
          code: 'cycle',
          message: `The parents of ${cycle.length} files form a cycle; it is cut above ${cut.file}.`,
        });
      }
    }
    for (const walked of path) state.set(walked.key, 'done');
  }
}

/** The family (one tree of the forest) a file belongs to, in the forest's order. */
export function familyOf(forest: FamilyForest, key: string): FamilyMember[] {
  const byKey = new Map(forest.members.map((member) => [member.key, member]));
  let root = byKey.get(key);
  if (!root) return [];
  const seen = new Set<string>();
  while (root.parentKey !== null && !seen.has(root.key)) {
    seen.add(root.key);
    const parent = byKey.get(root.parentKey);
    if (!parent) break;
    root = parent;
  }
  const start = forest.members.indexOf(root);
  const family = [root];
  for (let i = start + 1; i < forest.members.length && forest.members[i]!.depth > 0; i++) {
    family.push(forest.members[i]!);
  }
  return family;
}

/** `parentSession` is a path (pi's forks and branches) or a session id (oh-my-pi's `forkFrom`). */
export function parentSessionIsPath(parentSession: string): boolean {
  return parentSession.includes('/') || parentSession.includes('\\') || parentSession.endsWith('.jsonl');
}

/** What the text at a file's head says: its header's fields and its first entries. */
export interface ParsedFamilyHead {
  sessionId?: string;
  headerTimestamp?: string;
  parentSession?: string;
  head: FamilyHeadEntry[];
  /**
   * The text of the first user message the file wrote itself (newer than its header), at most
   * OWN_MESSAGE_CHARS: what a fork is about, where its first message is its parent's, copied.
   */
  ownFirstMessage?: string;
}

/** The most characters of a file's own first message kept (as the session list keeps its first). */
export const OWN_MESSAGE_CHARS = 300;

/** A file with a parent is read this many of its own entries past the copied ones for its own first message. */
export const OWN_ENTRIES_FOR_NAME = 16;

/**
 * Reads the head of a session file line by line: its header (the first `session` line; oh-my-pi
 * puts a title line before it) and the entries after it; unreadable lines are skipped. `settled`
 * says when enough is read: for a file with a parent, its first own user message (every entry a fork
 * copied is older than its header, so all of them are read first), or OWN_ENTRIES_FOR_NAME entries
 * of its own without one; for any other file, the header and `rootEntries` entries.
 */
export class FamilyHeadReader {
  readonly parsed: ParsedFamilyHead = { head: [] };
  private sawHeader = false;
  private ownEntries = 0;

  constructor(private readonly rootEntries = 256) {}

  get settled(): boolean {
    if (!this.sawHeader) return false;
    if (this.parsed.parentSession === undefined) return this.parsed.head.length >= this.rootEntries;
    return this.parsed.ownFirstMessage !== undefined || this.ownEntries >= OWN_ENTRIES_FOR_NAME;
  }

  addLine(line: string): void {
    if (line.trim() === '') return;
    const parsed = this.parsed;
    // Past the header, an entry's leading fields are all a copied entry (or a root file's) needs.
    const record = (this.sawHeader && this.leadingFieldsWillDo(line)) || parseRecord(line);
    if (!record) return;
    if (!this.sawHeader) {
      if (record.type !== 'session') return;
      this.sawHeader = true;
      if (typeof record.id === 'string') parsed.sessionId = record.id;
      if (typeof record.timestamp === 'string') parsed.headerTimestamp = record.timestamp;
      if (typeof record.parentSession === 'string') parsed.parentSession = record.parentSession;
      return;
    }
    if (typeof record.id !== 'string') return;
    const entry: FamilyHeadEntry = {
      id: record.id,
      parentId: typeof record.parentId === 'string' ? record.parentId : null,
    };
    if (typeof record.timestamp === 'string') {
      entry.timestamp = record.timestamp;
      if (parsed.headerTimestamp !== undefined && record.timestamp >= parsed.headerTimestamp) {
        this.ownEntries++;
        const text = record.type === 'message' ? userMessageText(record.message).trim() : '';
        if (text !== '' && parsed.ownFirstMessage === undefined)
          parsed.ownFirstMessage = text.slice(0, OWN_MESSAGE_CHARS);
      }
    }
    parsed.head.push(entry);
  }

  /**
   * The entry's fields up to its timestamp, when they are all this reader needs of it: a copied
   * entry of a child (older than the header) or any entry of a file without a parent; undefined
   * for an entry the file wrote itself (its message may name it) or a line not laid out that way.
   */
  private leadingFieldsWillDo(line: string): Record<string, unknown> | undefined {
    const record = leadingFields(line);
    if (!record) return undefined;
    const header = this.parsed.headerTimestamp;
    const own = header !== undefined && (record.timestamp as string) >= header;
    return own && this.parsed.parentSession !== undefined ? undefined : record;
  }
}

/** A whole line as a JSON object, or undefined for an unreadable one (skipped, as pi skips it). */
function parseRecord(line: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/**
 * An entry line as pi and oh-my-pi lay it out, its first four keys plain strings (no escapes, so
 * each captured text is the value itself): type, id, parentId (or null), timestamp.
 */
const LEADING_FIELDS =
  /^\{"type":"([^"\\]*)","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)"),"timestamp":"([^"\\]*)"/;

/** Whether the line's last character but trailing white space closes an object (it is not cut off). */
function endsObject(line: string): boolean {
  let at = line.length - 1;
  while (at >= 0 && line.charCodeAt(at) <= 0x20) at--;
  return at >= 0 && line.charCodeAt(at) === 0x7d;
}

/**
 * `type`, `id`, `parentId` and `timestamp` of an entry line from the line's start alone, where pi
 * and oh-my-pi write them first (`{"type":…,"id":…,"parentId":…,"timestamp":…,` then the message):
 * a fork copies thousands of entries whose content a family never reads (JSON.parse of whole lines
 * was ~70% of a 50-file family's time). Undefined when the four are not plain strings laid out so
 * (an escape in one of them), or the line is cut off: the caller parses it whole.
 */
export function leadingFields(line: string): Record<string, unknown> | undefined {
  if (!endsObject(line)) return undefined;
  const plain = LEADING_FIELDS.exec(line);
  return plain
    ? { type: plain[1], id: plain[2], parentId: plain[3] ?? null, timestamp: plain[4] }
    : undefined;
}

/** The head of a file from its first bytes as text; a cut-off last line is left out unless `complete`. */
export function parseFamilyHead(text: string, complete: boolean): ParsedFamilyHead {
  const lines = text.split('\n');
  if (!complete) lines.pop();
  const reader = new FamilyHeadReader();
  for (const line of lines) reader.addLine(line);
  return reader.parsed;
}

/**
 * The newest time in each item's subtree, itself included: what pi's threaded `/resume` orders a
 * family by. Iterative post-order (a family may be a long chain of continuations); an item met again
 * on its own path (a cycle) counts its own time there.
 */
export function latestInSubtrees<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  timeOf: (item: T) => number,
  childrenOf: (item: T) => readonly T[],
): Map<string, number> {
  const latest = new Map<string, number>();
  for (const start of items) {
    if (latest.has(keyOf(start))) continue;
    const stack: { item: T; done: boolean }[] = [{ item: start, done: false }];
    const onStack = new Set<string>();
    while (stack.length > 0) {
      const top = stack.pop()!;
      const key = keyOf(top.item);
      const kids = childrenOf(top.item);
      if (!top.done) {
        if (latest.has(key) || onStack.has(key)) continue;
        onStack.add(key);
        stack.push({ item: top.item, done: true });
        for (const kid of kids) stack.push({ item: kid, done: false });
      } else {
        let value = timeOf(top.item);
        for (const kid of kids) value = Math.max(value, latest.get(keyOf(kid)) ?? timeOf(kid));
        latest.set(key, value);
      }
    }
  }
  return latest;
}
