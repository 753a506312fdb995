// What a path did to files, read from its tool calls (docs/branches.md#files): `write` sets a file's
// content, `edit` applies its replacements (pi's `edits`, the legacy top-level `oldText`/`newText`,
// pi 1.6's `details.patch` when the result has it, oh-my-pi's replace, patch and hashline forms),
// failed results are skipped, and whatever may change files without saying how (bash, unknown tools,
// nested calls whose arguments were not kept) is an unknown effect, never guessed.
// One file because the edit forms all apply to the same state (fragments of a file's content) and must
// agree on how a replacement is placed. Pure: a function of the entries it is fed, nothing kept between
// calls; `FileReconstruction` is fed in slices so a caller can yield between them.

import { isRecord } from '../text';
import type { SessionEntry } from '../types';
import { countChanges, diffLines, hunksOf, splitLines, type DiffHunk } from './line-diff';

/** A change one tool call made to one file. */
export interface FileOperation {
  /** The assistant entry whose tool call made it (or the tool result holding a nested call). */
  entryId: string;
  /** The tool result entry that reported it. */
  resultId: string;
  toolCallId: string;
  tool: string;
  kind: 'write' | 'edit' | 'delete' | 'move';
  added: number;
  removed: number;
  /** Line numbers are of the file when its whole content is known, else of the fragment. */
  hunks: DiffHunk[];
  /** The change could not be placed in the content known (counted, not applied). */
  unplaced?: boolean;
  /** For a move: the other path. */
  movedTo?: string;
}

/** A change of the net diff, with the tool calls whose lines it shows. */
export interface NetHunk extends DiffHunk {
  /** The fragment of the file it is in (0 when the whole file is known). */
  fragment: number;
  /** Entry ids of the operations (`FileOperation.entryId`) that wrote its lines, latest last. */
  entryIds: string[];
}

export interface FileChangeReport {
  path: string;
  ops: FileOperation[];
  /** Sums over the operations. */
  added: number;
  removed: number;
  /** Net change against the first content the session saw (the content before it is unknown). */
  net: { added: number; removed: number; hunks: NetHunk[] };
  /** Operations changed it, yet it ends as it was first seen. */
  changedBack: boolean;
  /** The whole content is known at the end (a write, or a create), not only edited fragments. */
  wholeKnown: boolean;
  /** The path first wrote it whole: whatever was there before is unknown, the net diff starts empty. */
  startsFromWrite: boolean;
  deleted: boolean;
  /** Some change could not be placed in the content known. */
  partlyUnknown: boolean;
}

export type UnknownEffectReason =
  /** bash, python or a tool that may change files without saying which. */
  | 'may-change-files'
  /** A nested call whose arguments were left out of the file (`argumentsBytes` only). */
  | 'arguments-not-kept'
  /** A call that may change files with no result on this path. */
  | 'no-result';

export interface UnknownEffect {
  entryId: string;
  tool: string;
  reason: UnknownEffectReason;
  toolCallId?: string;
  /** The file it names, when it names one (a write or edit without a result). */
  path?: string;
}

export interface FailedCall {
  entryId: string;
  resultId: string;
  tool: string;
  toolCallId: string;
  path?: string;
}

export interface FilesReport {
  files: FileChangeReport[];
  unknownEffects: UnknownEffect[];
  failed: FailedCall[];
}

/** Tools that only read: they change no file. Any other tool that is not write or edit may. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'read',
  'grep',
  'find',
  'ls',
  'glob',
  'fetch',
  'web_search',
  'web_fetch',
  'search',
  'todo_write',
  'ask',
  'lsp',
  'calc',
]);

interface Fragment {
  base: string;
  current: string;
}

interface FileState {
  path: string;
  fragments: Fragment[];
  whole: boolean;
  startsFromWrite: boolean;
  deleted: boolean;
  partlyUnknown: boolean;
  ops: FileOperation[];
}

interface PendingCall {
  entryId: string;
  id: string;
  name: string;
  args: Record<string, unknown>;
}

interface Replacement {
  oldText: string;
  newText: string;
  all?: boolean;
}

/** The path a tool call names (`path`, or `file_path` as some tools spell it). */
export function toolCallPath(args: Record<string, unknown>): string | undefined {
  const path = typeof args.path === 'string' ? args.path : args.file_path;
  if (typeof path !== 'string' || path === '') return undefined;
  return path.startsWith('./') ? path.slice(2) : path;
}

function lineCount(text: string): number {
  return splitLines(text).length;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function replacementHunks(oldText: string, newText: string, startLine: number): DiffHunk[] {
  return hunksOf(diffLines(splitLines(oldText), splitLines(newText))).map((h) => ({
    ...h,
    oldStart: h.oldStart + startLine - 1,
    newStart: h.newStart + startLine - 1,
  }));
}

/** pi's `edits` (an array, one object, or a JSON string of either) plus the legacy top-level pair. */
function piReplacements(args: Record<string, unknown>): Replacement[] | undefined {
  let edits: unknown = args.edits;
  if (typeof edits === 'string') {
    try {
      edits = JSON.parse(edits);
    } catch {
      edits = undefined;
    }
  }
  if (isRecord(edits) && !Array.isArray(edits)) edits = [edits];
  const out: Replacement[] = [];
  if (Array.isArray(edits)) {
    for (const edit of edits) {
      if (!isRecord(edit) || typeof edit.oldText !== 'string' || typeof edit.newText !== 'string')
        return undefined;
      out.push({ oldText: edit.oldText, newText: edit.newText });
    }
  }
  if (typeof args.oldText === 'string' && typeof args.newText === 'string')
    out.push({ oldText: args.oldText, newText: args.newText });
  if (typeof args.old_text === 'string' && typeof args.new_text === 'string')
    out.push({ oldText: args.old_text, newText: args.new_text, all: args.all === true });
  return out.length > 0 ? out : undefined;
}

/**
 * The hunks of a unified patch (pi 1.6's `details.patch`) or of oh-my-pi's patch-mode `diff`, each as
 * the text it replaced and the text it wrote (its kept lines included, so it places itself).
 */
export function patchReplacements(patch: string): Replacement[] {
  const out: Replacement[] = [];
  let old: string[] | undefined;
  let next: string[] = [];
  const flush = () => {
    if (old && (old.length > 0 || next.length > 0))
      out.push({ oldText: joinLines(old), newText: joinLines(next) });
    old = undefined;
    next = [];
  };
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) {
      flush();
      old = [];
      continue;
    }
    if (
      line.startsWith('--- ') ||
      line.startsWith('+++ ') ||
      line.startsWith('Index:') ||
      line.startsWith('===')
    )
      if (!old) continue;
    if (line.startsWith('\\')) continue;
    if (!old) {
      if (line === '') continue;
      old = []; // oh-my-pi's diff may begin without an @@ line
    }
    if (line.startsWith('-')) old.push(line.slice(1));
    else if (line.startsWith('+')) next.push(line.slice(1));
    else {
      const text = line.startsWith(' ') ? line.slice(1) : line;
      old.push(text);
      next.push(text);
    }
  }
  flush();
  // A trailing empty kept line comes from the patch's final newline, not from the file.
  return out.map((r) => trimTrailingEmpty(r));
}

function trimTrailingEmpty(r: Replacement): Replacement {
  if (r.oldText.endsWith('\n\n') && r.newText.endsWith('\n\n'))
    return { oldText: r.oldText.slice(0, -1), newText: r.newText.slice(0, -1) };
  return r;
}

function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** oh-my-pi's hashline tag "LINE#HASH" (or "LINE:HASH") → the line number. */
function tagLine(tag: unknown): number | undefined {
  if (typeof tag !== 'string') return undefined;
  const match = /^\s*(\d+)/.exec(tag);
  return match ? Number(match[1]) : undefined;
}

function hashlineContent(content: unknown): string[] {
  if (content === null || content === undefined) return [];
  if (Array.isArray(content)) return content.filter((c): c is string => typeof c === 'string');
  if (typeof content !== 'string') return [];
  const lines = content.split('\n');
  if (lines.length > 0 && (lines[lines.length - 1] as string).trim() === '') lines.pop();
  return lines;
}

interface HashlineSplice {
  /** 0-based index of the first line replaced (or the insertion point). */
  at: number;
  remove: number;
  lines: string[];
}

function hashlineSplices(edits: readonly unknown[], lineTotal: number): HashlineSplice[] | undefined {
  const out: HashlineSplice[] = [];
  for (const edit of edits) {
    if (!isRecord(edit)) return undefined;
    const lines = hashlineContent(edit.content);
    switch (edit.op) {
      case 'set': {
        const line = tagLine(edit.tag);
        if (line === undefined) return undefined;
        out.push({ at: line - 1, remove: 1, lines });
        break;
      }
      case 'replace': {
        const first = tagLine(edit.first);
        const last = tagLine(edit.last);
        if (first === undefined || last === undefined || last < first) return undefined;
        out.push({ at: first - 1, remove: last - first + 1, lines });
        break;
      }
      case 'append':
      case 'insert': {
        const after = tagLine(edit.after);
        const before = tagLine(edit.before);
        if (after !== undefined) out.push({ at: after, remove: 0, lines });
        else if (before !== undefined) out.push({ at: before - 1, remove: 0, lines });
        else out.push({ at: edit.op === 'append' ? lineTotal : 0, remove: 0, lines });
        break;
      }
      case 'prepend': {
        const before = tagLine(edit.before);
        out.push({ at: before === undefined ? 0 : before - 1, remove: 0, lines });
        break;
      }
      default:
        return undefined;
    }
  }
  return out;
}

/**
 * Reconstructs, entry by entry, what a path did to files. Feed it the path root first (in slices if
 * it is long), optionally `rebase()` where a lane starts (changes before it become the base), then
 * read `report()`.
 */
export class FileReconstruction {
  private readonly files = new Map<string, FileState>();
  private readonly calls = new Map<string, PendingCall>();
  private readonly unknownEffects: UnknownEffect[] = [];
  private readonly failed: FailedCall[] = [];

  /** @param onlyPath only this file is followed (a file lens); unknown effects are still listed. */
  constructor(private readonly onlyPath?: string) {}

  feed(entries: readonly SessionEntry[]): void {
    for (const entry of entries) this.feedEntry(entry);
  }

  /** What was reconstructed so far becomes the base; the report lists only what comes after. */
  rebase(): void {
    for (const state of this.files.values()) {
      for (const fragment of state.fragments) fragment.base = fragment.current;
      state.ops = [];
      state.startsFromWrite = false;
      state.partlyUnknown = false;
    }
    this.unknownEffects.length = 0;
    this.failed.length = 0;
    this.calls.clear();
  }

  report(): FilesReport {
    const files: FileChangeReport[] = [];
    for (const state of this.files.values()) if (state.ops.length > 0) files.push(fileReport(state));
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const unknownEffects = [...this.unknownEffects];
    for (const call of this.calls.values())
      if (mayChangeFiles(call.name)) {
        const path = toolCallPath(call.args);
        if (this.onlyPath === undefined || path === undefined || path === this.onlyPath)
          unknownEffects.push({
            entryId: call.entryId,
            tool: call.name,
            reason: 'no-result',
            toolCallId: call.id,
            ...(path === undefined ? {} : { path }),
          });
      }
    return { files, unknownEffects, failed: [...this.failed] };
  }

  private feedEntry(entry: SessionEntry): void {
    if (entry.type !== 'message' || !isRecord(entry.message)) return;
    const message = entry.message;
    switch (message.role) {
      case 'assistant': {
        if (!Array.isArray(message.content)) return;
        for (const block of message.content) {
          if (!isRecord(block) || block.type !== 'toolCall' || typeof block.id !== 'string') continue;
          const name = typeof block.name === 'string' ? block.name : '';
          const args = isRecord(block.arguments) ? block.arguments : {};
          this.calls.set(block.id, { entryId: entry.id, id: block.id, name, args });
        }
        return;
      }
      case 'toolResult': {
        const call = typeof message.toolCallId === 'string' ? this.calls.get(message.toolCallId) : undefined;
        if (call) {
          this.calls.delete(call.id);
          this.result(call, entry.id, message);
        }
        this.nested(entry.id, message.nestedCalls);
        return;
      }
      case 'bashExecution':
      case 'pythonExecution':
        this.unknownEffects.push({ entryId: entry.id, tool: message.role, reason: 'may-change-files' });
        return;
      default:
        return;
    }
  }

  private nested(resultId: string, nestedCalls: unknown): void {
    if (!isRecord(nestedCalls) || !Array.isArray(nestedCalls.calls)) return;
    for (const call of nestedCalls.calls) {
      if (!isRecord(call)) continue;
      const name = typeof call.name === 'string' ? call.name : '';
      const id = typeof call.id === 'string' ? call.id : '';
      if (!mayChangeFiles(name)) continue;
      if (!isRecord(call.arguments)) {
        this.unknownEffects.push({
          entryId: resultId,
          tool: name,
          reason: 'arguments-not-kept',
          toolCallId: id,
        });
        continue;
      }
      const pending = { entryId: resultId, id, name, args: call.arguments };
      if (call.status !== 'ok') {
        if (call.status === 'error') this.failCall(pending, resultId);
        else this.unknownEffects.push({ entryId: resultId, tool: name, reason: 'no-result', toolCallId: id });
        continue;
      }
      this.apply(pending, resultId, undefined);
    }
  }

  private result(call: PendingCall, resultId: string, message: Record<string, unknown>): void {
    if (!mayChangeFiles(call.name)) return;
    if (message.isError === true) return this.failCall(call, resultId);
    this.apply(call, resultId, isRecord(message.details) ? message.details : undefined);
  }

  private failCall(call: PendingCall, resultId: string): void {
    const path = toolCallPath(call.args);
    if (this.onlyPath !== undefined && path !== this.onlyPath) return;
    this.failed.push({
      entryId: call.entryId,
      resultId,
      tool: call.name,
      toolCallId: call.id,
      ...(path === undefined ? {} : { path }),
    });
  }

  private apply(call: PendingCall, resultId: string, details: Record<string, unknown> | undefined): void {
    const path = toolCallPath(call.args);
    const isWrite = call.name === 'write';
    const isEdit = call.name === 'edit';
    if (!path || (!isWrite && !isEdit)) {
      this.unknownEffects.push({
        entryId: call.entryId,
        tool: call.name,
        reason: 'may-change-files',
        toolCallId: call.id,
        ...(path === undefined ? {} : { path }),
      });
      return;
    }
    const rename =
      typeof call.args.rename === 'string' && call.args.rename !== '' ? call.args.rename : undefined;
    if (this.onlyPath !== undefined && path !== this.onlyPath && rename !== this.onlyPath) return;
    const op = { entryId: call.entryId, resultId, toolCallId: call.id, tool: call.name };
    const state = this.stateOf(path);
    if (isWrite) {
      const content = typeof call.args.content === 'string' ? call.args.content : undefined;
      if (content === undefined) return this.unplaced(state, op, 0, 0);
      this.write(state, op, content);
      return;
    }
    const args = call.args;
    if (args.delete === true || args.op === 'delete') {
      this.remove(state, op);
    } else if (args.op === 'create' && typeof args.diff === 'string') {
      this.write(state, op, createContent(args.diff));
    } else if (Array.isArray(args.edits) && args.edits.some((e) => isRecord(e) && typeof e.op === 'string')) {
      this.hashline(state, op, args.edits);
    } else if (typeof args.diff === 'string') {
      this.replace(state, op, patchReplacements(args.diff));
    } else {
      // pi 1.6's result carries the patch it applied (its fuzzy match included): what happened wins.
      const patch =
        details && typeof details.patch === 'string' ? patchReplacements(details.patch) : undefined;
      const replacements = patch && patch.length > 0 ? patch : piReplacements(args);
      if (!replacements) return this.unplaced(state, op, 0, 0);
      this.replace(state, op, replacements);
    }
    if (rename && rename !== path) this.move(state, op, rename);
  }

  private stateOf(path: string): FileState {
    let state = this.files.get(path);
    if (!state) {
      state = {
        path,
        fragments: [],
        whole: false,
        startsFromWrite: false,
        deleted: false,
        partlyUnknown: false,
        ops: [],
      };
      this.files.set(path, state);
    }
    return state;
  }

  private write(state: FileState, op: OpBase, content: string): void {
    const before = state.fragments.map((f) => f.current).join('');
    if (state.fragments.length === 0) state.startsFromWrite = true;
    if (!state.whole) {
      // What was known of it (edited fragments) was part of the content the session first saw.
      state.fragments = [{ base: state.fragments.map((f) => f.base).join(''), current: content }];
      state.whole = true;
    } else {
      (state.fragments[0] as Fragment).current = content;
    }
    state.deleted = false;
    const lines = diffLines(splitLines(before), splitLines(content));
    state.ops.push({ ...op, kind: 'write', ...countChanges(lines), hunks: hunksOf(lines) });
  }

  private remove(state: FileState, op: OpBase): void {
    const removed = state.whole ? lineCount(state.fragments[0]?.current ?? '') : 0;
    for (const fragment of state.fragments) fragment.current = '';
    if (state.fragments.length === 0) state.fragments.push({ base: '', current: '' });
    state.deleted = true;
    state.partlyUnknown ||= !state.whole;
    state.ops.push({ ...op, kind: 'delete', added: 0, removed, hunks: [] });
  }

  private move(state: FileState, op: OpBase, to: string): void {
    const target = this.stateOf(to);
    target.fragments = state.fragments.map((f) => ({ base: '', current: f.current }));
    target.whole = state.whole;
    target.startsFromWrite = true;
    target.deleted = false;
    target.ops.push({ ...op, kind: 'move', added: 0, removed: 0, hunks: [], movedTo: state.path });
    for (const fragment of state.fragments) fragment.current = '';
    state.deleted = true;
    state.ops.push({ ...op, kind: 'move', added: 0, removed: 0, hunks: [], movedTo: to });
  }

  private unplaced(state: FileState, op: OpBase, added: number, removed: number): void {
    state.partlyUnknown = true;
    state.ops.push({ ...op, kind: 'edit', added, removed, hunks: [], unplaced: true });
  }

  private replace(state: FileState, op: OpBase, replacements: readonly Replacement[]): void {
    const hunks: DiffHunk[] = [];
    let added = 0;
    let removed = 0;
    for (const r of replacements) {
      const change = countChanges(diffLines(splitLines(r.oldText), splitLines(r.newText)));
      added += change.added;
      removed += change.removed;
      const placed = this.place(state, r);
      hunks.push(...replacementHunks(r.oldText, r.newText, placed));
    }
    state.deleted = false;
    state.ops.push({ ...op, kind: 'edit', added, removed, hunks });
  }

  /** Applies one replacement to the content known; answers the line it starts at. */
  private place(state: FileState, r: Replacement): number {
    for (let i = 0; i < state.fragments.length; i++) {
      const fragment = state.fragments[i] as Fragment;
      const at = r.oldText === '' ? -1 : fragment.current.indexOf(r.oldText);
      if (at < 0) continue;
      const line = lineOf(fragment.current, at);
      fragment.current = r.all
        ? fragment.current.split(r.oldText).join(r.newText)
        : fragment.current.slice(0, at) + r.newText + fragment.current.slice(at + r.oldText.length);
      return state.whole ? line : 1;
    }
    // Not in what is known: a part of the file the session had not seen (its first sight of it), or,
    // when the whole content was known, a sign something else (bash) changed the file meanwhile.
    if (state.whole) state.partlyUnknown = true;
    if (
      state.whole &&
      state.fragments.length === 1 &&
      state.fragments[0]?.current === '' &&
      r.oldText === ''
    ) {
      (state.fragments[0] as Fragment).current = r.newText;
      return 1;
    }
    state.whole = false;
    state.fragments.push({ base: r.oldText, current: r.newText });
    return 1;
  }

  private hashline(state: FileState, op: OpBase, edits: readonly unknown[]): void {
    const content = state.whole ? (state.fragments[0]?.current ?? '') : undefined;
    const lines = content === undefined ? undefined : splitLines(content);
    const splices = hashlineSplices(edits, lines?.length ?? 0);
    if (!splices) return this.unplaced(state, op, 0, 0);
    const added = splices.reduce((n, s) => n + s.lines.length, 0);
    const removed = splices.reduce((n, s) => n + s.remove, 0);
    if (!lines) {
      // Anchored on line numbers of a content the session never saw whole: counted, not placed.
      if (state.fragments.length === 0 && splices.every((s) => s.remove === 0 && s.at === 0)) {
        // oh-my-pi creates a missing file from anchorless appends and prepends.
        return this.write(state, op, joinLines(splices.flatMap((s) => s.lines)));
      }
      return this.unplaced(state, op, added, removed);
    }
    const next = [...lines];
    // Every edit is anchored on the original lines: apply from the bottom up.
    const ordered = [...splices].sort((a, b) => b.at - a.at);
    for (const s of ordered) next.splice(s.at, s.remove, ...s.lines);
    const text = joinLines(next);
    const diff = diffLines(lines, next);
    (state.fragments[0] as Fragment).current = text;
    state.ops.push({ ...op, kind: 'edit', ...countChanges(diff), hunks: hunksOf(diff) });
  }
}

type OpBase = Pick<FileOperation, 'entryId' | 'resultId' | 'toolCallId' | 'tool'>;

/** oh-my-pi's create content may carry diff `+` markers on every line. */
function createContent(diff: string): string {
  const lines = diff.split('\n');
  const nonEmpty = lines.filter((l) => l !== '');
  if (nonEmpty.length > 0 && nonEmpty.every((l) => l.startsWith('+') && !l.startsWith('++')))
    return lines.map((l) => (l.startsWith('+') ? l.slice(1) : l)).join('\n');
  return diff;
}

function mayChangeFiles(tool: string): boolean {
  return !READ_ONLY_TOOLS.has(tool);
}

function fileReport(state: FileState): FileChangeReport {
  const hunks: NetHunk[] = [];
  let added = 0;
  let removed = 0;
  state.fragments.forEach((fragment, index) => {
    const lines = diffLines(splitLines(fragment.base), splitLines(fragment.current));
    const change = countChanges(lines);
    added += change.added;
    removed += change.removed;
    for (const hunk of hunksOf(lines))
      hunks.push({ ...hunk, fragment: index, entryIds: madeBy(hunk, state.ops) });
  });
  const opAdded = state.ops.reduce((n, o) => n + o.added, 0);
  const opRemoved = state.ops.reduce((n, o) => n + o.removed, 0);
  const changed = state.ops.some((o) => o.added > 0 || o.removed > 0 || o.kind !== 'edit');
  return {
    path: state.path,
    ops: state.ops,
    added: opAdded,
    removed: opRemoved,
    net: { added, removed, hunks },
    changedBack: changed && hunks.length === 0 && !state.partlyUnknown && !state.deleted,
    wholeKnown: state.whole,
    startsFromWrite: state.startsFromWrite,
    deleted: state.deleted,
    partlyUnknown: state.partlyUnknown,
  };
}

/** Substring comparisons one net hunk may spend finding its makers; past it, whole lines only. */
const CONTAINMENT_BUDGET = 20_000;

/**
 * The operations whose own hunks added or removed the lines of a net hunk, in file order: one whose
 * line is the net line; an edit whose replacement sits inside a net line (pi's edits replace text,
 * often part of a line); and, walking back, an operation that made a line a later maker changed
 * (the write of a line an edit then changed inside). Substring comparisons are budgeted, so a large
 * file's hunk never costs a product of its lines and its operations.
 */
function madeBy(hunk: DiffHunk, ops: readonly FileOperation[]): string[] {
  const addedLines = hunk.lines.filter((l) => l.kind === '+').map((l) => l.text);
  const removedLines = hunk.lines.filter((l) => l.kind === '-').map((l) => l.text);
  const added = new Set(addedLines);
  const removed = new Set(removedLines);
  let budget = CONTAINMENT_BUDGET;
  const holds = (texts: readonly string[], part: string) => {
    if (part.trim() === '' || budget < texts.length) return false;
    budget -= texts.length;
    return texts.some((text) => text.includes(part));
  };
  const made = new Array<boolean>(ops.length).fill(false);
  // Texts later makers removed: an earlier operation that added a line holding one made that line.
  const changedLater: string[] = [];
  const madeLater = (text: string) => {
    if (budget < changedLater.length) return false;
    budget -= changedLater.length;
    return changedLater.some((t) => t.trim() !== '' && text.includes(t));
  };
  for (let k = ops.length - 1; k >= 0; k--) {
    const lines = ops[k]!.hunks.flatMap((h) => h.lines);
    made[k] = lines.some((l) =>
      l.kind === '+'
        ? added.has(l.text) || holds(addedLines, l.text) || madeLater(l.text)
        : l.kind === '-' && (removed.has(l.text) || holds(removedLines, l.text)),
    );
    if (made[k]) for (const l of lines) if (l.kind === '-') changedLater.push(l.text);
  }
  const ids: string[] = [];
  ops.forEach((op, k) => {
    if (made[k] && !ids.includes(op.entryId)) ids.push(op.entryId);
  });
  return ids;
}

/** What a whole path (root first) did to files. */
export function reconstructFiles(
  path: readonly SessionEntry[],
  options: { from?: number } = {},
): FilesReport {
  const reconstruction = new FileReconstruction();
  const from = options.from ?? 0;
  reconstruction.feed(path.slice(0, from));
  if (from > 0) reconstruction.rebase();
  reconstruction.feed(path.slice(from));
  return reconstruction.report();
}
