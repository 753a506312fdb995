// SessionManager: one session file as an append-only tree with a movable leaf, with the reference's
// method names and semantics (docs/tree-and-context.md), plus what Canopy needs on top: issues instead
// of silent skipping, a live tail (`ingest`), and persistence through a storage interface.
// One file because it is one class with the reference's API: its methods share the leaf, the index and
// the write-before-change ordering. What it delegates lives beside it: parsing (parse.ts), the index
// (tree-index.ts), what is kept of each entry and reading it back (entry-store.ts), context (context.ts).

import { EntryStore } from './entry-store';
import type { EntryRetention, RangeReader } from './entry-store';
import { generateEntryId, generateSessionId } from './ids';
import { isAbridged } from './line-scan';
import { getSessionVersion, isKnownSessionVersion, migrateV1Line, migrateV2Line } from './migrate';
import type { V1ChainState } from './migrate';
import { SessionLineParser, utf8Length } from './parse';
import type { ParseBatch, TitleSlot } from './parse';
import type { SessionStorage, SessionStorageProvider } from './storage';
import { TreeIndex } from './tree-index';
import { branchSummaryOrigin, isOmpEntry, isPiOneEntry } from './entry-types';
import type { BranchSummaryOrigin } from './detail-sections';
import { buildSessionContext, currentSystemMessage } from './context';
import { isRecord } from './text';
import { CURRENT_SESSION_VERSION } from './types';
import type {
  BranchSummaryEntry,
  CompactionEntry,
  ContextEditEntry,
  CustomEntry,
  CustomMessageEntry,
  Dialect,
  EntryBase,
  FileLine,
  LabelEntry,
  MessageEntry,
  ModeChangeEntry,
  ModelChangeEntry,
  ParseIssue,
  SessionContext,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
  SessionTreeNode,
  StoredMessage,
  ThinkingLevelChangeEntry,
  TtsrInjectionEntry,
  Usage,
  UsageEntry,
  UserContentBlock,
} from './types';

/** What the tree's shape needs of an entry (SessionManager.getChildShapes): no content. */
export type EntryShape = Pick<EntryBase, 'type' | 'id' | 'parentId' | 'timestamp'>;

/** The shape of an indexed entry, whole or a stub: a fresh object, so no caller holds the index's. */
function shapeOf({ type, id, parentId, timestamp }: EntryShape): EntryShape {
  return { type, id, parentId, timestamp };
}

export interface SessionManagerOptions {
  /** Where appends go. Without one the session lives in memory only. */
  storage?: SessionStorage;
  /** Creates the files of new sessions (createBranchedSession, forkSession, newSession). */
  storageProvider?: SessionStorageProvider;
  /**
   * The clock that stamps headers and entries, in Unix milliseconds; `Date.now` by default. Generators
   * that need fixed timestamps (the demo sessions, tests) inject one instead of replacing `Date`.
   */
  now?: () => number;
  /**
   * What stays in memory: 'all' (default) keeps every parsed entry; 'index' keeps the tree index and,
   * for most entries, only their id, parentId, type, timestamp and line position, and reads full
   * entries back from the file on demand (see docs/architecture.md#state). 'index' needs `readRange`
   * or a storage with `readRange`; a legacy file that is migrated on load keeps its entries whole.
   */
  retain?: EntryRetention;
  /** Reads byte ranges of the session file (default: the storage's `readRange`). */
  readRange?: RangeReader;
  /** How many full entries an 'index' session keeps cached (the most recently read ones); default 256. */
  entryCacheSize?: number;
  /**
   * Called with each batch of new entries, in full, as they enter the index (load, ingest, append),
   * `firstIndex` being the position of the first one in file order. After a switch to another file
   * (branched, forked or new session, the rewrite of a migrated file) it is called once with every
   * entry of the new state and `firstIndex` 0. With `retain: 'index'` this is the one time a consumer
   * sees every full entry without reading the file again.
   *
   * While a session with `retain: 'index'` loads (`fromJsonl` of bytes, `fromJsonlChunks`), an entry
   * may instead come abridged (`isAbridged(entry)` is true): string values longer than the tree ever
   * reads are cut short (line-scan.ts). Everything the tree's skeleton derives from it (`toViewEntry`,
   * the tool-call index, usage, the first user message) is exactly what the full entry gives; any
   * other use must read the entry with `getEntry`. Never keep an abridged entry.
   */
  onEntries?: (entries: readonly SessionEntry[], firstIndex: number) => void;
  /**
   * Which pi a pi session's writes follow (docs/format.md#writing): 'pi-1.6' (default, today's pi) or
   * 'pi-0.73', for tests that drive session-core in lockstep with that version (a branch_summary's
   * `fromId`, `/name`'s line breaks, and createBranchedSession's repair of entries that followed a
   * dropped label). oh-my-pi sessions always follow oh-my-pi.
   */
  writeAs?: PiWriter;
}

/** The pi versions whose writes a pi session can follow (see SessionManagerOptions.writeAs). */
export type PiWriter = 'pi-1.6' | 'pi-0.73';

export interface InMemoryOptions extends SessionManagerOptions {
  /** Shape of new model_change entries and of the extension flag; default 'pi'. */
  dialect?: Dialect;
  /** Session id; random by default. */
  id?: string;
}

export interface FromJsonlOptions extends SessionManagerOptions {
  /** Overrides the dialect detected from the file. */
  dialect?: Dialect;
  /** The working directory for a file without a header (an empty file). */
  cwd?: string;
}

export interface NewSessionOptions {
  id?: string;
  parentSession?: string;
  cwd?: string;
}

export interface IngestResult {
  /** Entries indexed from the lines this chunk completed, in file order. */
  entries: SessionEntry[];
  /** Issues of those lines: parse problems, duplicate ids, and their parent-link problems. */
  issues: ParseIssue[];
}

export type SessionWriteRefusal = 'incomplete-last-line' | 'missing-header';

/** Thrown instead of writing when a write would damage the file. Nothing has changed when it is thrown. */
export class SessionWriteError extends Error {
  constructor(
    readonly reason: SessionWriteRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'SessionWriteError';
  }
}

function serialize(line: FileLine | TitleSlot): string {
  return JSON.stringify(line);
}

function buildHeader(id: string, cwd: string, now: number, parentSession?: string): SessionHeader {
  const header: SessionHeader = {
    type: 'session',
    version: CURRENT_SESSION_VERSION,
    id,
    timestamp: new Date(now).toISOString(),
    cwd,
  };
  // An absent parent is an absent key, as JSON.stringify writes the reference's undefined.
  if (parentSession !== undefined) header.parentSession = parentSession;
  return header;
}

/**
 * The session name of an oh-my-pi file, as oh-my-pi 18.3.4 shows it: the title line before the
 * header is rewritten in place on every rename, so it wins (an empty title there means no name);
 * without one, the latest title_change, then the header's own `title`. The title line truncates a
 * long title to fit its fixed size; when the latest title_change holds the same title in full, the
 * full one is shown.
 */
export function ompSessionName(
  titleSlot: TitleSlot | undefined,
  latestTitleChange: string | undefined,
  headerTitle: unknown,
): string | undefined {
  if (titleSlot && typeof titleSlot.title === 'string') {
    const slotTitle = titleSlot.title.trim();
    if (slotTitle === '') return undefined;
    if (latestTitleChange !== undefined && latestTitleChange.startsWith(titleSlot.title))
      return latestTitleChange.trim();
    return slotTitle;
  }
  if (latestTitleChange !== undefined && latestTitleChange.trim() !== '') return latestTitleChange.trim();
  return typeof headerTitle === 'string' && headerTitle.trim() !== '' ? headerTitle.trim() : undefined;
}

/** The title a title_change entry records, if it is a string. */
export function titleChangeTitle(entry: SessionEntry): string | undefined {
  return entry.type === 'title_change' && typeof entry.title === 'string' ? entry.title : undefined;
}

/**
 * The name a session_info entry sets. The latest session_info wins even when its name is blank:
 * that clears the name, as the reference package 0.73.1 does ("empty names explicitly clear the
 * session title"), so Canopy shows the same name as pi's /resume.
 */
export function sessionInfoName(entry: SessionEntry): string | undefined {
  const name = entry.name;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
}

/** Entries handed to `onEntries` at once when a whole new state is announced. */
const ANNOUNCE_BATCH = 1024;

/**
 * Bytes parsed at once while a file loads (a whole file given as bytes, too, so that no string of it
 * is longer than the runtime allows). A caller's pieces (4 MB reads) are parsed in slices this small so that each slice's entries are indexed, handed to `onEntries` and dropped while they are
 * still in the young generation: parsed whole, a piece's entries outlive a scavenge and get copied
 * and promoted, and the garbage collector was the largest share of a load's time.
 */
const BYTES_PER_PIECE = 256 << 10;
const NEWLINE_BYTE = 0x0a;

export class SessionManager {
  private header: SessionHeader | undefined;
  private titleSlot: TitleSlot | undefined;
  /** False while the header exists only in memory (a session loaded from an empty file). */
  private headerOnDisk: boolean;
  private index = new TreeIndex();
  private leafId: string | null = null;
  private parser = new SessionLineParser();
  /** Parse problems of lines read so far (structural ones live in the index). */
  private parseIssues: ParseIssue[] = [];
  private storage: SessionStorage | undefined;
  private readonly storageProvider: SessionStorageProvider | undefined;
  private cwdFallback: string;
  private currentDialect: Dialect;
  private dialectFixed: boolean;
  private loadedVersion: number | undefined;
  private knownVersion = true;
  private rewriteNeeded = false;
  /** While the file is still a legacy one, lines read from it are migrated as they arrive. */
  private legacy: { version: number; v1: V1ChainState; v1Lines: Map<number, FileLine> } | undefined;
  private sessionName: string | undefined;
  /** [OMP] The title of the latest title_change entry. */
  private latestTitleChange: string | undefined;
  private headerLine: number | undefined;
  private readonly now: () => number;
  private store: EntryStore;
  private readonly entryCacheSize: number | undefined;
  private readonly onEntries: ((entries: readonly SessionEntry[], firstIndex: number) => void) | undefined;
  private readonly writeAs: PiWriter;
  /** An entry, or a field of one, that only pi 1.x writes has been read or written. */
  private piOneEvidence = false;

  private constructor(
    options: {
      header: SessionHeader | undefined;
      headerOnDisk: boolean;
      cwd: string;
      dialect?: Dialect;
    } & SessionManagerOptions,
  ) {
    this.now = options.now ?? Date.now;
    const reader = options.readRange ?? storageReader(options.storage);
    if (options.retain === 'index' && !reader) {
      throw new Error(
        'A session with retain "index" needs readRange (or a storage with readRange) to read its entries back',
      );
    }
    this.entryCacheSize = options.entryCacheSize;
    this.store = new EntryStore(options.retain ?? 'all', reader, options.entryCacheSize);
    this.onEntries = options.onEntries;
    this.writeAs = options.writeAs ?? 'pi-1.6';
    this.header = options.header;
    this.headerOnDisk = options.headerOnDisk;
    this.storage = options.storage;
    this.storageProvider = options.storageProvider;
    this.cwdFallback = options.cwd;
    this.currentDialect = options.dialect ?? 'pi';
    this.dialectFixed = options.dialect !== undefined;
    this.loadedVersion = options.header ? getSessionVersion(options.header) : undefined;
    this.knownVersion = isKnownSessionVersion(options.header);
  }

  // ------------------------------------------------------------------ construction

  /**
   * A new, empty session (header with version 3, a random id, the current time, `cwd`). With a storage,
   * the header line is written to it at once.
   */
  static inMemory(cwd = '', options: InMemoryOptions = {}): SessionManager {
    const now = options.now ?? Date.now;
    const header = buildHeader(options.id ?? generateSessionId(), cwd, now());
    const manager = new SessionManager({
      ...options,
      now,
      header,
      headerOnDisk: true,
      cwd,
      dialect: options.dialect ?? 'pi',
    });
    const text = `${serialize(header)}\n`;
    options.storage?.rewrite(text);
    manager.parser.restart(text, header);
    manager.headerLine = 1;
    return manager;
  }

  /**
   * Loads a session file's content: parses it (reporting every unusable line in `issues`), migrates a
   * legacy file in memory (then `needsRewrite` is true), indexes it, and puts the leaf on the last entry
   * of the file. A partial last line stays buffered: `ingest` completes it when the rest arrives.
   */
  static fromJsonl(text: string | Uint8Array, options: FromJsonlOptions = {}): SessionManager {
    const manager = SessionManager.loading(options);
    if (typeof text === 'string') manager.absorb(manager.parser.push(text), false);
    else {
      // Bytes are parsed a piece at a time, so a file larger than the longest string the runtime
      // can hold (about 512 MB) still loads.
      manager.absorbPiece(text);
    }
    return manager.loaded();
  }

  /**
   * `fromJsonl` over the file's bytes in pieces, in order (any split: a line cut between two pieces is
   * joined by the parser). Only one piece at a time is decoded, so a file larger than the longest
   * string the runtime can hold (about 512 MB) still loads.
   */
  static async fromJsonlChunks(
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: FromJsonlOptions = {},
  ): Promise<SessionManager> {
    const manager = SessionManager.loading(options);
    for await (const chunk of chunks) manager.absorbPiece(chunk);
    return manager.loaded();
  }

  /**
   * Parses and indexes a piece of a file being loaded, in slices of about {@link BYTES_PER_PIECE}
   * cut after a newline (a line longer than that is one slice), so no line is cut in two and joined
   * again but at the piece's own end.
   */
  private absorbPiece(piece: Uint8Array): void {
    for (let at = 0; at < piece.length;) {
      let end = at + BYTES_PER_PIECE;
      if (end >= piece.length) end = piece.length;
      else {
        const before = piece.lastIndexOf(NEWLINE_BYTE, end - 1);
        const after = before >= at ? before : piece.indexOf(NEWLINE_BYTE, end);
        end = after === -1 ? piece.length : after + 1;
      }
      this.absorb(this.parser.push(piece.subarray(at, end)), false);
      at = end;
    }
  }

  private static loading(options: FromJsonlOptions): SessionManager {
    const manager = new SessionManager({
      ...options,
      header: undefined,
      headerOnDisk: false,
      cwd: options.cwd ?? '',
    });
    // Keeping only stubs, a load needs from each line only what the index and `onEntries` read: long
    // strings are cut before decoding (line-scan.ts). Appends read later are parsed in full.
    manager.parser.abridgeLongStrings = manager.store.dropsEntries;
    return manager;
  }

  /** The end of a load: the leaf on the last entry, and a header in memory for an empty file. */
  private loaded(): SessionManager {
    this.parser.abridgeLongStrings = false;
    this.leafId = this.index.last()?.id ?? null;
    const blank =
      this.header === undefined &&
      this.parser.expectingHeader &&
      this.parseIssues.length === 0 &&
      this.titleSlot === undefined;
    if (blank) {
      // An empty (or blank) file: it gets a header in memory, written just before the first entry. If
      // another writer puts content there first, `absorb` adopts its header or drops this one.
      this.header = buildHeader(generateSessionId(), this.cwdFallback, this.now());
      this.loadedVersion = CURRENT_SESSION_VERSION;
      this.knownVersion = true;
    }
    return this;
  }

  /** `fromJsonl(storage.read(), { storage, ... })`. */
  static fromStorage(
    storage: SessionStorage,
    options: Omit<FromJsonlOptions, 'storage'> = {},
  ): SessionManager {
    return SessionManager.fromJsonl(storage.read(), { ...options, storage });
  }

  // ------------------------------------------------------------------ state

  /** `issues.length`, without building the list (a list row asks on every append). */
  get issueCount(): number {
    return this.parseIssues.length + this.index.issueCount + (this.parser.remainderIssue() ? 1 : 0);
  }

  /** Problems found in the file: unusable lines, duplicate ids, parent-link problems, a cut-off end. */
  get issues(): readonly ParseIssue[] {
    const all = [...this.parseIssues, ...this.index.getIssues()];
    const remainder = this.parser.remainderIssue();
    if (remainder) all.push(remainder);
    return all.sort((a, b) => a.line - b.line);
  }

  /** True when a legacy file was migrated in memory: the first write rewrites the whole file first. */
  get needsRewrite(): boolean {
    return this.rewriteNeeded;
  }

  /** The format version of the file as it was read (before migration); undefined without a header. */
  get version(): number | undefined {
    return this.loadedVersion;
  }

  /**
   * Whether the header's `version`, as written in the file, is one whose rules are known
   * (isKnownSessionVersion); a file of an unknown version must not be migrated or written to.
   */
  get versionKnown(): boolean {
    return this.knownVersion;
  }

  get dialect(): Dialect {
    return this.currentDialect;
  }

  /**
   * Whether the file shows pi 1.x's hand: an entry type, role or field only pi 1.x writes
   * (entry-types.ts `isPiOneEntry`). It decides what a branch_summary's `fromId` means
   * (`branchSummaryOrigin`, docs/format.md#branch-summary-fromid).
   */
  get piOne(): boolean {
    return this.piOneEvidence;
  }

  /** What a branch_summary's `fromId` names in this file. */
  branchSummaryOrigin(entry: SessionEntry): BranchSummaryOrigin {
    return branchSummaryOrigin(entry, { dialect: this.currentDialect, piOne: this.piOneEvidence });
  }

  /** Fixes the dialect (the shape of new model_change entries and of the extension flag). */
  set dialect(dialect: Dialect) {
    this.currentDialect = dialect;
    this.dialectFixed = true;
  }

  /** Bytes of a partial last line buffered until its newline arrives (0 when the file ends cleanly). */
  get pendingBytes(): number {
    return this.parser.pendingBytes;
  }

  /** Byte offset just after the last complete line read or written: where to resume tailing the file. */
  get consumedBytes(): number {
    return this.parser.consumedBytes;
  }

  /** Complete lines of the file read or written so far. */
  get lineCount(): number {
    return this.parser.lineCount;
  }

  // ------------------------------------------------------------------ reading

  getLeafId(): string | null {
    return this.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    return this.leafId === null ? undefined : this.getEntry(this.leafId);
  }

  /** Whether an entry with this id is indexed, without reading it back from the file. */
  hasEntry(id: string): boolean {
    return this.index.has(id);
  }

  getEntry(id: string): SessionEntry | undefined {
    const retained = this.index.get(id);
    return retained && this.store.full(retained);
  }

  /**
   * Every entry in file order (headers excluded); a copy. With `retain: 'index'` this reads every
   * entry back from the file: O(file) time, and the result holds the whole session in memory.
   */
  getEntries(): SessionEntry[] {
    return this.fullEntries(this.index.entries);
  }

  /** What the store keeps made whole again; the list as it is when every entry is kept. */
  private fullEntries(retained: readonly SessionEntry[], cache = false): SessionEntry[] {
    if (this.store.retention === 'all') return retained.slice();
    return retained.map((entry) => this.store.full(entry, cache));
  }

  getHeader(): SessionHeader | null {
    return this.header ?? null;
  }

  /** Entries whose parentId is `parentId`, in insertion order (not sorted by time). */
  getChildren(parentId: string | null): SessionEntry[] {
    return this.fullEntries(this.index.getChildren(parentId), true);
  }

  /**
   * The shape of `getChildren(parentId)`: each child's type, id, parentId and timestamp, in the
   * same order, from the index alone. With `retain: 'index'` getChildren reads every child back
   * from the file; a walk over the tree's shape (the order of a selection, a detail's child ids)
   * must not read a 1 GB file back for it.
   */
  getChildShapes(parentId: string | null): EntryShape[] {
    return this.index.getChildren(parentId).map(shapeOf);
  }

  /**
   * Builds part of the index's children-by-parent map ahead of the first children query (see
   * TreeIndex.prepareChildren): at most `entries` entries per call; answers whether it is built.
   */
  prepareChildIndex(entries: number): boolean {
    return this.index.prepareChildren(entries);
  }

  getLabel(id: string): string | undefined {
    return this.index.getLabel(id);
  }

  /** When the entry's label was set: its latest label entry's timestamp (pi's `labelTimestamp`). */
  getLabelTimestamp(id: string): string | undefined {
    return this.index.getLabelTimestamp(id);
  }

  /** The path root → `fromId` (default: the leaf); `[]` for an unknown id or a null leaf. */
  getBranch(fromId?: string): SessionEntry[] {
    return this.fullEntries(this.index.getBranch(fromId ?? this.leafId), true);
  }

  /**
   * The shape of `getBranch(fromId)`, from the index alone: what a navigation needs to find the
   * common ancestor of two paths, which in a deep session are tens of thousands of entries long
   * (getBranch reads each back from the file with `retain: 'index'`).
   */
  getBranchShapes(fromId?: string | null): EntryShape[] {
    return this.index.getBranch(fromId ?? this.leafId).map(shapeOf);
  }

  /** An entry's type, id, parent and time from the index alone (no read back from the file). */
  getShape(id: string): EntryShape | undefined {
    const retained = this.index.get(id);
    return retained && shapeOf(retained);
  }

  /** The forest of all entries. With `retain: 'index'` this reads every entry back: O(file). */
  getTree(): SessionTreeNode[] {
    const roots = this.index.getTree();
    if (this.store.retention === 'all') return roots;
    const pending = roots.slice();
    for (let node = pending.pop(); node; node = pending.pop()) {
      node.entry = this.store.full(node.entry, false);
      for (const child of node.children) pending.push(child);
    }
    return roots;
  }

  /**
   * An entry's position among the entries in file order: its index in `getEntries()`, which is also
   * the position `onEntries` handed it at.
   */
  getPosition(id: string): number | undefined {
    return this.index.positionOf(id);
  }

  /** The 1-based line of the file an entry is on. */
  getLine(id: string): number | undefined {
    return this.index.lineOf(id);
  }

  /** The 1-based line of the header in the file; undefined while the header is not in the file. */
  getHeaderLine(): number | undefined {
    return this.headerOnDisk ? this.headerLine : undefined;
  }

  getSessionId(): string {
    return this.header?.id ?? '';
  }

  getCwd(): string {
    const cwd = this.header?.cwd;
    return typeof cwd === 'string' ? cwd : this.cwdFallback;
  }

  getSessionFile(): string | undefined {
    return this.storage?.path;
  }

  /**
   * The latest session_info name (pi); otherwise the oh-my-pi title: the title line, the latest
   * title_change, the header title (see {@link ompSessionName}).
   */
  getSessionName(): string | undefined {
    if (this.sessionName !== undefined) return this.sessionName;
    return ompSessionName(this.titleSlot, this.latestTitleChange, this.header?.title);
  }

  /** [OMP] The title line before the header, if the file has one. */
  getTitleSlot(): TitleSlot | undefined {
    return this.titleSlot;
  }

  /**
   * [OMP] oh-my-pi rewrote the fixed-size title line in place (a rename): take the new one. The
   * line keeps its size, so nothing else in the file moved and the tail offset stays valid.
   */
  replaceTitleSlot(slot: TitleSlot): void {
    this.titleSlot = slot;
  }

  /** What the model sees at the leaf (delegates to buildSessionContext). */
  buildSessionContext(): SessionContext {
    if (this.store.retention === 'all') {
      return buildSessionContext(this.index.entries, this.leafId, this.index.byId, {
        dialect: this.currentDialect,
      });
    }
    // Only the path is read back: the leaf is always an indexed entry (or null), so the entry list is
    // consulted only for a leaf that is not in the index, where the last entry stands in.
    const lookup = { get: (id: string) => this.getEntry(id) };
    const last = this.index.last();
    const fallback =
      this.leafId !== null && !this.index.has(this.leafId) && last ? [this.store.full(last)] : [];
    return buildSessionContext(fallback, this.leafId, lookup, { dialect: this.currentDialect });
  }

  /**
   * The whole file: title slot (if any), header, then every entry, one JSON line each. One string of
   * the whole session, so O(file) (with `retain: 'index'` every entry is read back for it); branch and
   * fork stream their new file instead.
   */
  toJsonl(): string {
    const lines: string[] = [];
    if (this.titleSlot) lines.push(serialize(this.titleSlot));
    if (this.header) lines.push(serialize(this.header));
    for (const entry of this.index.entries) lines.push(serialize(this.store.full(entry, false)));
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  // ------------------------------------------------------------------ leaf moves

  /** Moves the leaf onto an existing entry; nothing is written. */
  branch(branchFromId: string): void {
    if (!this.index.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
    this.leafId = branchFromId;
  }

  /** Leaf = null: the next append starts a new root. */
  resetLeaf(): void {
    this.leafId = null;
  }

  /**
   * Moves the leaf to `branchFromId` (null: before the first entry) and appends a branch_summary there,
   * which becomes the leaf. Its `fromId` (docs/format.md#branch-summary-fromid) is, as pi 1.6 writes it,
   * the leaf that was left (or "root"); as pi 0.73 and oh-my-pi write it, the branch-from id (or "root").
   * `usage` is what generating the summary used (pi 1.x).
   */
  branchWithSummary(
    branchFromId: string | null,
    summary: string,
    details?: unknown,
    fromExtension?: boolean,
    usage?: Usage,
  ): string {
    if (branchFromId !== null && !this.index.has(branchFromId)) {
      throw new Error(`Entry ${branchFromId} not found`);
    }
    const fromId =
      this.currentDialect === 'pi' && this.writeAs === 'pi-1.6'
        ? (this.leafId ?? 'root')
        : (branchFromId ?? 'root');
    return this.appendEntry(branchFromId, (id, parentId, timestamp) =>
      this.branchSummaryEntry({ id, parentId, timestamp, fromId, summary, details, fromExtension, usage }),
    );
  }

  /** A branch_summary with its keys in pi's order; absent options are absent keys. */
  private branchSummaryEntry(fields: {
    id: string;
    parentId: string | null;
    timestamp: string;
    fromId: string;
    summary: string;
    details: unknown;
    fromExtension: boolean | undefined;
    usage: Usage | undefined;
  }): BranchSummaryEntry {
    const { id, parentId, timestamp, fromId, summary, details, fromExtension, usage } = fields;
    const entry: BranchSummaryEntry = { type: 'branch_summary', id, parentId, timestamp, fromId, summary };
    if (details !== undefined) entry.details = details;
    if (usage !== undefined) entry.usage = usage;
    if (fromExtension !== undefined) entry[this.extensionFlag()] = fromExtension;
    return entry;
  }

  // ------------------------------------------------------------------ appends

  /**
   * Appends a branch_summary under the current leaf (it becomes the leaf) with the given `fromId`:
   * a summary of entries elsewhere in the tree (a selection) carried into the branch being
   * continued, where `branchWithSummary` would move the leaf to the summarised position.
   */
  appendBranchSummary(
    fromId: string,
    summary: string,
    details?: unknown,
    fromExtension?: boolean,
    usage?: Usage,
  ): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp) =>
      this.branchSummaryEntry({ id, parentId, timestamp, fromId, summary, details, fromExtension, usage }),
    );
  }

  appendMessage(message: StoredMessage): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp): MessageEntry => ({
      type: 'message',
      id,
      parentId,
      timestamp,
      message,
    }));
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp): ThinkingLevelChangeEntry => ({
      type: 'thinking_level_change',
      id,
      parentId,
      timestamp,
      thinkingLevel,
    }));
  }

  /**
   * pi: `appendModelChange(provider, modelId)` writes `{provider, modelId}`.
   * oh-my-pi: `appendModelChange("provider/id", role?)` writes `{model, role?}`.
   * A pi session given a single "provider/id" splits it at the first "/".
   */
  appendModelChange(providerOrModel: string, modelIdOrRole?: string): string {
    let fields: { provider: string; modelId: string } | { model: string; role?: string };
    if (this.currentDialect === 'omp') {
      fields =
        modelIdOrRole === undefined
          ? { model: providerOrModel }
          : { model: providerOrModel, role: modelIdOrRole };
    } else if (modelIdOrRole !== undefined) {
      fields = { provider: providerOrModel, modelId: modelIdOrRole };
    } else {
      const slash = providerOrModel.indexOf('/');
      if (slash <= 0)
        throw new Error(`Model "${providerOrModel}" needs a model id (or the form "provider/id")`);
      fields = { provider: providerOrModel.slice(0, slash), modelId: providerOrModel.slice(slash + 1) };
    }
    return this.appendEntry(this.leafId, (id, parentId, timestamp): ModelChangeEntry => ({
      type: 'model_change',
      id,
      parentId,
      timestamp,
      ...fields,
    }));
  }

  /**
   * Appends a compaction. As pi 1.6 writes it: without `firstKeptEntryId` (null) it keeps nothing (it
   * names itself); `usage` is what generating the summary used; and when the context at the leaf holds system
   * messages, their replayed whole is stored as `systemMessage` (it leads the compacted context).
   */
  appendCompaction(
    summary: string,
    firstKeptEntryId: string | null | undefined,
    tokensBefore: number,
    details?: unknown,
    fromExtension?: boolean,
    usage?: Usage,
  ): string {
    const system =
      this.currentDialect === 'pi' ? currentSystemMessage(this.buildSessionContext().messages) : undefined;
    return this.appendEntry(this.leafId, (id, parentId, timestamp) => {
      const entry: CompactionEntry = {
        type: 'compaction',
        id,
        parentId,
        timestamp,
        summary,
        firstKeptEntryId: firstKeptEntryId ?? id,
        tokensBefore,
      };
      if (details !== undefined) entry.details = details;
      if (usage !== undefined) entry.usage = usage;
      if (fromExtension !== undefined) entry[this.extensionFlag()] = fromExtension;
      if (system) entry.systemMessage = { ...system, timestamp: Date.parse(timestamp) };
      return entry;
    });
  }

  /**
   * [pi 1.x] An edit of what the model is sent for `targetId` from here on, on this branch
   * (docs/tree-and-context.md#context-edits): `null` leaves it out, `{content}` replaces its content.
   * As pi 1.6: the target must be a user, assistant or tool-result message or a custom_message on the
   * active path, and a string replacement of an assistant reply or tool result becomes one text block.
   */
  appendContextEdit(targetId: string, replacement: ContextEditEntry['replacement']): string {
    if (
      replacement !== null &&
      (!isRecord(replacement) ||
        !('content' in replacement) ||
        (typeof replacement.content !== 'string' && !Array.isArray(replacement.content)))
    ) {
      throw new Error('Context edit replacement must be null or contain string/array content');
    }
    const target = this.getShape(targetId);
    if (!target) throw new Error(`Entry ${targetId} not found`);
    if (!this.index.getBranch(this.leafId).some((entry) => entry.id === targetId)) {
      throw new Error(`Entry ${targetId} is not on the active branch`);
    }
    const full = this.getEntry(targetId) as SessionEntry;
    const role = full.type === 'message' && isRecord(full.message) ? full.message.role : undefined;
    const editable =
      full.type === 'custom_message' || role === 'user' || role === 'assistant' || role === 'toolResult';
    if (!editable) throw new Error(`Entry ${targetId} does not contribute editable model content`);
    const normalized =
      replacement !== null &&
      (role === 'assistant' || role === 'toolResult') &&
      typeof replacement.content === 'string'
        ? { content: [{ type: 'text' as const, text: replacement.content }] }
        : replacement;
    return this.appendEntry(this.leafId, (id, parentId, timestamp): ContextEditEntry => ({
      type: 'context_edit',
      id,
      parentId,
      timestamp,
      targetId,
      replacement: normalized,
    }));
  }

  /**
   * [pi 1.x] Model work outside the conversation (e.g. `kind` "cache_warm"): never in the context,
   * counted in the totals. Returns the entry, as pi does.
   */
  appendUsage(kind: string, provider: string, model: string, usage: Usage, note?: string): UsageEntry {
    const id = this.appendEntry(this.leafId, (id, parentId, timestamp): UsageEntry => {
      const entry: UsageEntry = { type: 'usage', id, parentId, timestamp, kind, provider, model, usage };
      // pi writes a note only when it is not empty.
      if (note) entry.note = note;
      return entry;
    });
    return this.getEntry(id) as UsageEntry;
  }

  /** Extension state; never enters the model's context. */
  appendCustomEntry(customType: string, data?: unknown): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp) => {
      // The reference writes the custom fields before the base fields for these two entry types.
      const entry = { type: 'custom', customType } as CustomEntry;
      if (data !== undefined) entry.data = data;
      return Object.assign(entry, { id, parentId, timestamp });
    });
  }

  /** An extension message that enters the model's context as a user message. */
  appendCustomMessageEntry(
    customType: string,
    content: string | UserContentBlock[],
    display: boolean,
    details?: unknown,
  ): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp) => {
      const entry = { type: 'custom_message', customType, content, display } as CustomMessageEntry;
      if (details !== undefined) entry.details = details;
      return Object.assign(entry, { id, parentId, timestamp });
    });
  }

  /** Sets the session's display name: trimmed, and as pi 1.6 writes it, line breaks made spaces. */
  appendSessionInfo(name: string): string {
    const sanitized = this.writeAs === 'pi-1.6' ? name.replace(/[\r\n]+/g, ' ') : name;
    return this.appendEntry(this.leafId, (id, parentId, timestamp): SessionInfoEntry => ({
      type: 'session_info',
      id,
      parentId,
      timestamp,
      name: sanitized.trim(),
    }));
  }

  /**
   * Sets (or, with undefined or "", clears) the label of an existing entry. The label entry is appended
   * under the current leaf, so the leaf moves onto it. A cleared label writes no `label` key.
   */
  appendLabelChange(targetId: string, label?: string): string {
    if (!this.index.has(targetId)) throw new Error(`Entry ${targetId} not found`);
    return this.appendEntry(this.leafId, (id, parentId, timestamp) => {
      const entry: LabelEntry = { type: 'label', id, parentId, timestamp, targetId };
      // Written as given, like the reference: "" and an absent label both clear it for every reader.
      if (label !== undefined) entry.label = label;
      return entry;
    });
  }

  /** [OMP] Names of the time-traveling stream rules injected so far. */
  appendTtsrInjection(injectedRules: readonly string[]): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp): TtsrInjectionEntry => ({
      type: 'ttsr_injection',
      id,
      parentId,
      timestamp,
      injectedRules: [...injectedRules],
    }));
  }

  /** [OMP] A mode switch ("plan", …, "none"). */
  appendModeChange(mode: string, data?: Record<string, unknown>): string {
    return this.appendEntry(this.leafId, (id, parentId, timestamp) => {
      const entry: ModeChangeEntry = { type: 'mode_change', id, parentId, timestamp, mode };
      if (data !== undefined) entry.data = data;
      return entry;
    });
  }

  // ------------------------------------------------------------------ new sessions

  /**
   * Extracts the path root → `leafId` into a new session (docs/tree-and-context.md#branched-session): label entries are
   * dropped from the path, and fresh label entries, chained after the last kept entry, recreate the
   * labels that resolve on kept entries. The leaf becomes the last entry. With a storage provider the new
   * file is written at once (header `parentSession` = this file's path) and becomes the current one;
   * its path is returned. Without one the switch happens in memory and undefined is returned.
   * The original file is never touched.
   */
  createBranchedSession(leafId: string): string | undefined {
    const parentSession = this.storageProvider ? this.storage?.path : undefined;
    const file = this.branchedFile(leafId, parentSession);
    return this.switchTo(file);
  }

  /** The file createBranchedSession(leafId) writes, its header naming `parentSession`. */
  private branchedFile(leafId: string, parentSession: string | undefined): NewFile {
    // What the index keeps (stubs with retain 'index'): full entries are read one at a time as written.
    const path = this.index.getBranch(leafId);
    if (path.length === 0) throw new Error(`Entry ${leafId} not found`);
    // Label entries are dropped from the path (fresh ones are made below), and the kept entries are
    // chained again around them (docs/tree-and-context.md#branched-session). pi 1.6 chains every kept
    // entry to the one before it (the first becomes a root) and re-points a compaction whose first kept
    // entry was a dropped label to the entry that followed it. pi 0.73 copied the rest verbatim, so an
    // entry that followed a label became an orphan root; Canopy's repair for pi 0.73 and oh-my-pi hangs
    // such an entry from its nearest kept ancestor, as oh-my-pi's newest version does.
    const rechain = this.currentDialect === 'pi' && this.writeAs === 'pi-1.6';
    const kept: SessionEntry[] = [];
    /** New parents by position in `kept` (a copy is written; the source is untouched). */
    const reparented = new Map<number, string | null>();
    /** A dropped label → the kept entry that followed it, and that entry's position. */
    const replacementOfLabel = new Map<string, { id: string; position: number }>();
    const pendingLabels: string[] = [];
    let previousKeptId: string | null = null;
    for (const entry of path) {
      if (entry.type === 'label') {
        pendingLabels.push(entry.id);
        continue;
      }
      const position = kept.length;
      if (rechain) {
        for (const label of pendingLabels) replacementOfLabel.set(label, { id: entry.id, position });
        if (entry.parentId !== previousKeptId) reparented.set(position, previousKeptId);
      } else if (pendingLabels.length > 0 && entry.parentId !== previousKeptId) {
        reparented.set(position, previousKeptId);
      }
      pendingLabels.length = 0;
      kept.push(entry);
      previousKeptId = entry.id;
    }
    const taken = new Set(kept.map((entry) => entry.id));
    const labelEntries: LabelEntry[] = [];
    let parentId: string | null = kept[kept.length - 1]?.id ?? null;
    const now = new Date(this.now()).toISOString();
    for (const [targetId, label] of this.index.labels) {
      if (!taken.has(targetId)) continue;
      const id = generateEntryId(taken);
      taken.add(id);
      labelEntries.push({
        type: 'label',
        id,
        parentId,
        // The reference keeps the time the label was set.
        timestamp: this.index.getLabelTimestamp(targetId) ?? now,
        targetId,
        label,
      });
      parentId = id;
    }
    const entryAt = (position: number): SessionEntry => {
      if (position >= kept.length) return labelEntries[position - kept.length] as LabelEntry;
      let entry = this.store.full(kept[position] as SessionEntry, false);
      const parentId = reparented.get(position);
      if (parentId !== undefined) entry = { ...entry, parentId };
      if (rechain && entry.type === 'compaction' && entry.firstKeptEntryId !== entry.id) {
        // Only labels already followed by a kept entry when pi reaches the compaction count.
        const replacement = replacementOfLabel.get(entry.firstKeptEntryId as string);
        if (replacement && replacement.position <= position)
          entry = { ...entry, firstKeptEntryId: replacement.id };
      }
      return entry;
    };
    const count = kept.length + labelEntries.length;
    const leaf = labelEntries[labelEntries.length - 1]?.id ?? kept[kept.length - 1]?.id ?? null;
    const header = buildHeader(generateSessionId(), this.getCwd(), this.now(), parentSession);
    return { header, count, entryAt, leafId: leaf };
  }

  /**
   * Starts a new, empty session (docs/tree-and-context.md#branched-session). With a storage provider its file is created
   * with the header line at once and its path returned; otherwise it lives in memory.
   */
  newSession(options: NewSessionOptions = {}): string | undefined {
    const file = this.emptyFile(options);
    return this.switchTo(file);
  }

  /** The file newSession writes: its header alone. */
  private emptyFile(options: NewSessionOptions): NewFile {
    const header = buildHeader(
      options.id ?? generateSessionId(),
      options.cwd ?? this.getCwd(),
      this.now(),
      options.parentSession,
    );
    return { header, count: 0, entryAt: () => undefined as never, leafId: null };
  }

  /**
   * Copies the whole session (every entry verbatim, same ids, same leaf) into a new session whose header
   * `parentSession` is this file's path. With a storage provider it is written at once and its path
   * returned; otherwise it lives in memory.
   */
  forkSession(): string | undefined {
    const file = this.forkedFile();
    return this.switchTo(file);
  }

  /** The file forkSession writes: every entry, its header naming this session's file. */
  private forkedFile(): NewFile {
    const header = buildHeader(generateSessionId(), this.getCwd(), this.now(), this.storage?.path);
    const entries = this.index.entries;
    return {
      header,
      count: entries.length,
      entryAt: (position) => this.store.full(entries[position] as SessionEntry, false),
      leafId: this.leafId,
    };
  }

  /**
   * Writes through `provider` the new file that /branch from a user message makes, and leaves this
   * session on its own file: createBranchedSession(`parentId`)'s file, or for a root message
   * (`parentId` null) newSession's, an empty session. Its header names this session's file as
   * parentSession. A server that keeps the session open branches it this way without loading a
   * second copy of the whole file (a 1 GB session took 3.35 s to branch that way). Answers the path.
   */
  writeBranchedFile(parentId: string | null, provider: SessionStorageProvider): string | undefined {
    const parentSession = this.storage?.path;
    return writeNewFile(
      provider,
      parentId === null ? this.emptyFile({ parentSession }) : this.branchedFile(parentId, parentSession),
    );
  }

  /** Writes through `provider` the file forkSession would switch to, leaving this session as it is. */
  writeForkedFile(provider: SessionStorageProvider): string | undefined {
    return writeNewFile(provider, this.forkedFile());
  }

  // ------------------------------------------------------------------ live tail

  /**
   * Feeds bytes that another writer appended to the file. Only complete lines are indexed; a partial
   * last line waits for the rest (`pendingBytes`). The leaf does not move: the caller decides.
   */
  ingest(chunk: string | Uint8Array): IngestResult {
    return this.absorb(this.parser.push(chunk));
  }

  // ------------------------------------------------------------------ internals

  private extensionFlag(): 'fromHook' | 'fromExtension' {
    return this.currentDialect === 'omp' ? 'fromExtension' : 'fromHook';
  }

  /** Takes what the parser produced into the session: header, migration of legacy lines, index. */
  private absorb(batch: ParseBatch, reportStructural = true): IngestResult {
    const issues = [...batch.issues];
    this.parseIssues.push(...batch.issues);
    if (batch.titleSlot) {
      this.titleSlot = batch.titleSlot.slot;
      this.noteDialectEvidence(typeof batch.titleSlot.slot.title === 'string');
    }
    if (batch.header) {
      this.adoptHeader(batch.header.header, batch.header.line);
    } else if (!this.headerOnDisk && this.header && !this.parser.expectingHeader) {
      // Someone else started the file without a header: ours can no longer go on its first line.
      this.header = undefined;
      this.loadedVersion = undefined;
      this.knownVersion = true;
    }

    const added: SessionEntry[] = [];
    const firstIndex = this.index.size;
    for (const { line, entry, offset, length } of batch.entries) {
      if (this.legacy) {
        if (this.legacy.version < 2) {
          this.legacy.v1Lines.set(line, entry);
          migrateV1Line(entry, this.legacy.v1);
        }
        migrateV2Line(entry);
      }
      // A migrated entry is not what its line says, so it cannot be read back from it: kept whole.
      const span = this.legacy || !this.store.dropsEntries ? undefined : { offset, length, line };
      const retained = this.store.retain(entry, span);
      if (retained === entry && isAbridged(entry)) {
        // The parser abridges only while every entry it hands over is kept as a stub.
        throw new Error(`internal: an abridged entry (line ${line}) would be kept whole`);
      }
      const duplicate = this.index.add(entry, line, retained);
      if (duplicate) {
        issues.push(duplicate);
        continue;
      }
      added.push(entry);
      this.noteEntry(entry);
    }
    if (added.length > 0) this.onEntries?.(added, firstIndex);
    // While loading nobody reads the returned issues (`issues` computes them from the final state).
    if (reportStructural && added.length > 0) {
      issues.push(...this.index.structuralIssuesOf(added.map((entry) => entry.id)));
    }
    issues.sort((a, b) => a.line - b.line);
    return { entries: added, issues };
  }

  /** The file's header has been read: a legacy one is migrated in memory, and its lines as they come. */
  private adoptHeader(header: SessionHeader, line: number): void {
    this.header = header;
    this.headerOnDisk = true;
    this.headerLine = line;
    this.loadedVersion = getSessionVersion(header);
    // Decided on the version as written, before a migration in memory replaces it.
    this.knownVersion = isKnownSessionVersion(header);
    this.noteDialectEvidence(header.title !== undefined);
    if (this.loadedVersion >= CURRENT_SESSION_VERSION) return;

    const v1Lines = new Map<number, FileLine>([[line, header]]);
    const index = this.index;
    this.legacy = {
      version: this.loadedVersion,
      v1Lines,
      v1: {
        previousId: this.index.last()?.id ?? null,
        taken: {
          has: (id: string) => index.has(id),
          // The index records the id when the migrated entry is added right after.
          add: () => undefined,
        },
        migrated: new Set(),
        // firstKeptEntryIndex is the 0-based position in the file with the header at 0; count it from
        // the header's physical line, so skipped damaged lines cannot shift the target.
        lineAt: (position: number) => v1Lines.get(line + position),
      },
    };
    header.version = CURRENT_SESSION_VERSION;
    this.rewriteNeeded = true;
  }

  private noteEntry(entry: SessionEntry): void {
    if (entry.type === 'session_info') this.sessionName = sessionInfoName(entry);
    else if (entry.type === 'title_change') this.latestTitleChange = titleChangeTitle(entry);
    this.noteDialectEvidence(isOmpEntry(entry));
    if (!this.piOneEvidence && isPiOneEntry(entry)) this.piOneEvidence = true;
  }

  private noteDialectEvidence(isOmp: boolean): void {
    if (isOmp && !this.dialectFixed) this.currentDialect = 'omp';
  }

  /** Refuses, before anything changes, a write that would damage the file. */
  private assertWritable(): void {
    if (!this.storage) return;
    if (this.parser.pendingBytes > 0) {
      throw new SessionWriteError(
        'incomplete-last-line',
        'The session file ends with an incomplete line (another writer may be mid-write); nothing was written',
      );
    }
    if (!this.header) {
      throw new SessionWriteError(
        'missing-header',
        'The session file has no valid session header; nothing was written to it',
      );
    }
  }

  /**
   * Builds one entry under `parentId`, writes it, then indexes it and moves the leaf onto it. The write
   * comes first so that a failed write leaves the session exactly as it was.
   */
  private appendEntry(
    parentId: string | null,
    build: (id: string, parentId: string | null, timestamp: string) => SessionEntry,
  ): string {
    this.assertWritable();
    const entry = build(generateEntryId(this.index), parentId, new Date(this.now()).toISOString());
    const line = serialize(entry);
    if (this.storage && this.rewriteNeeded) this.rewriteMigratedFile();
    const written: string[] = [];
    let writtenHeader: SessionHeader | undefined;
    if (!this.headerOnDisk && this.header) {
      writtenHeader = this.header;
      written.push(serialize(this.header));
    }
    written.push(line);
    this.storage?.appendLines(written);
    let offset = this.parser.consumedBytes;
    if (writtenHeader) {
      this.headerLine = this.parser.lineCount + 1;
      offset += utf8Length(written[0] as string) + 1;
    }
    this.headerOnDisk = true;
    this.parser.noteWritten(written.map((text) => `${text}\n`).join(''), writtenHeader);
    const lineNumber = this.parser.lineCount;
    // Without a storage the line is in no file, so there is nothing to read it back from.
    const span = this.storage ? { offset, length: utf8Length(line), line: lineNumber } : undefined;
    const retained = this.store.retain(entry, span);
    this.index.add(entry, lineNumber, retained);
    this.store.remember(retained, entry);
    this.noteEntry(entry);
    this.onEntries?.([entry], this.index.size - 1);
    this.leafId = entry.id;
    return entry.id;
  }

  /**
   * The first write to a migrated legacy file replaces it with its v3 form (the storage makes the
   * backup). Like {@link switchTo}, the lines are serialised one at a time as the storage writes them
   * (`rewriteLines`), so a file of any size is never one string; the state changes only once the
   * write has succeeded. The file's lines are renumbered, so the index is rebuilt over the same entry
   * objects; lines that could not be used are not part of the new file, so their issues go too.
   */
  private rewriteMigratedFile(): void {
    const storage = this.storage as SessionStorage;
    const { titleSlot, header, store } = this;
    const entries = this.index.entries.slice();
    let lines = 0;
    let bytes = 0;
    let complete = false;
    const counted = (text: string): string => {
      lines++;
      bytes += utf8Length(text) + 1;
      return text;
    };
    function* fileLines(): Generator<string> {
      if (titleSlot) yield counted(serialize(titleSlot));
      if (header) yield counted(serialize(header));
      for (const entry of entries) yield counted(serialize(store.full(entry, false)));
      complete = true;
    }
    rewriteWith(storage, fileLines());
    if (!complete) throw new Error('internal: the storage stopped before the last line of the migrated file');
    this.rewriteNeeded = false;
    this.legacy = undefined;
    this.loadedVersion = CURRENT_SESSION_VERSION;
    this.knownVersion = true;
    // The entries stay whole: a reader holding the replaced file open would not see the new one.
    this.store.setReader(undefined);
    this.reindex(entries, lines, bytes);
  }

  /**
   * Replaces the whole state with `file` (its header, then `count` entries, `entryAt(k)` the k-th in
   * full), written to a new file when there is a provider. The lines are serialised one at a time as the
   * storage writes them (`rewriteLines`), so copying a large session never builds one string of it; the
   * new index is built alongside and takes over only once the write has succeeded.
   */
  private switchTo({ header, count, entryAt, leafId }: NewFile): string | undefined {
    const storage = this.storageProvider?.create(header);
    const store = new EntryStore(this.store.retention, storageReader(storage), this.entryCacheSize);
    const index = new TreeIndex();
    const noted: { name?: string; title?: string; omp: boolean; piOne: boolean } = {
      omp: false,
      piOne: false,
    };
    const headerText = serialize(header);
    let bytes = utf8Length(headerText) + 1;
    let lines = 1;
    function* fileLines(): Generator<string> {
      yield headerText;
      for (let position = 0; position < count; position++) {
        const entry = entryAt(position);
        const text = serialize(entry);
        const length = utf8Length(text);
        lines++;
        index.add(entry, lines, store.retain(entry, { offset: bytes, length, line: lines }));
        bytes += length + 1;
        if (entry.type === 'session_info') noted.name = sessionInfoName(entry);
        else if (entry.type === 'title_change') noted.title = titleChangeTitle(entry);
        noted.omp ||= isOmpEntry(entry);
        noted.piOne ||= isPiOneEntry(entry);
        yield text;
      }
    }
    const written = fileLines();
    if (storage) rewriteWith(storage, written);
    // Without a storage nothing consumed the lines: index them all the same.
    for (let next = written.next(); !next.done; next = written.next());

    this.storage = storage;
    this.store = store;
    this.index = index;
    this.header = header;
    this.headerOnDisk = true;
    this.headerLine = 1;
    this.titleSlot = undefined;
    this.loadedVersion = CURRENT_SESSION_VERSION;
    this.knownVersion = true;
    this.rewriteNeeded = false;
    this.legacy = undefined;
    this.parseIssues = [];
    this.sessionName = noted.name;
    this.latestTitleChange = noted.title;
    this.piOneEvidence = noted.piOne;
    this.noteDialectEvidence(noted.omp);
    this.parser.restartCounted(lines, bytes, header);
    this.leafId = leafId;
    this.announceAll();
    return storage?.path;
  }

  /**
   * Rebuilds the index and the line accounting for a file just rewritten with the title slot, the
   * header and `entries`, `lines` lines of `bytes` bytes in all (the rewrite of a migrated legacy
   * file, whose entries stay whole).
   */
  private reindex(entries: readonly SessionEntry[], lines: number, bytes: number): void {
    this.parseIssues = [];
    this.sessionName = undefined;
    this.latestTitleChange = undefined;
    this.index = new TreeIndex();
    this.parser.restartCounted(lines, bytes, this.header, this.titleSlot);
    this.headerLine = this.header ? (this.titleSlot ? 2 : 1) : undefined;
    const firstEntryLine = (this.titleSlot ? 1 : 0) + (this.header ? 1 : 0) + 1;
    entries.forEach((entry, position) => {
      this.index.add(entry, firstEntryLine + position);
      this.noteEntry(entry);
    });
    this.announceAll();
  }

  /** Hands the whole new state to `onEntries`, in batches from index 0 (an empty one for no entries). */
  private announceAll(): void {
    if (!this.onEntries) return;
    const entries = this.index.entries;
    let start = 0;
    do {
      const end = Math.min(start + ANNOUNCE_BATCH, entries.length);
      const batch: SessionEntry[] = [];
      for (let position = start; position < end; position++) {
        batch.push(this.store.full(entries[position] as SessionEntry, false));
      }
      this.onEntries(batch, start);
      start = end;
    } while (start < entries.length);
  }
}

/** A new session file as switchTo writes it: the header, then `count` entries, and its leaf. */
interface NewFile {
  header: SessionHeader;
  count: number;
  /** The k-th entry in full. */
  entryAt: (position: number) => SessionEntry;
  leafId: string | null;
}

/**
 * Writes `file` through a new storage of `provider`, line by line as switchTo does (the same bytes),
 * without making a session of it. Answers the new file's path (undefined for a storage without one).
 */
function writeNewFile(provider: SessionStorageProvider, file: NewFile): string | undefined {
  const storage = provider.create(file.header);
  function* fileLines(): Generator<string> {
    yield serialize(file.header);
    for (let position = 0; position < file.count; position++) yield serialize(file.entryAt(position));
  }
  rewriteWith(storage, fileLines());
  return storage.path;
}

/**
 * Writes `lines` as the whole of `storage`: line by line where the storage takes them so (a file of
 * any size never becomes one string), else as one text.
 */
function rewriteWith(storage: SessionStorage, lines: Iterable<string>): void {
  if (storage.rewriteLines) storage.rewriteLines(lines);
  else {
    let text = '';
    for (const line of lines) text += `${line}\n`;
    storage.rewrite(text);
  }
}

/** The storage's ranged reader, bound to it; undefined when it has none. */
function storageReader(storage: SessionStorage | undefined): RangeReader | undefined {
  const readRange = storage?.readRange;
  return storage && readRange ? (offset, length) => readRange.call(storage, offset, length) : undefined;
}
