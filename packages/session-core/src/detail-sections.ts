// What the detail panel shows of one entry, as data: the entry-type table (entry-types.ts) says which
// sections an entry has and which of its fields fill them (a fact of the file format); the web app only
// draws each kind of section, in one exhaustive switch. Every value here comes from a session file and
// is untrusted: the drawing renders text as text, markdown through a sanitiser.

import type { LocatedToolCall } from './tree-view/row-format';

/** A field of an entry shown by name: a string as it is, anything else as JSON. */
export interface DetailField {
  name: string;
  value: unknown;
}

/** One call a tool made to another tool (pi 1.x `nestedCalls`), as the detail lists it. */
export interface NestedCallItem {
  id: string;
  name: string;
  status: string;
  /** Left out when pi left it out; `argumentsBytes` then gives its size. */
  arguments?: unknown;
  argumentsBytes?: number;
  error?: string;
}

/** A tool a system message declares, as the detail lists it. */
export interface DeclaredTool {
  name: string;
  description: string;
}

export type DetailSection =
  /** Short facts on one line (a model, a stop reason, a thinking level). */
  | { kind: 'meta'; items: { text: string; mono?: boolean; testId?: string }[] }
  /** A sentence that explains the entry, or an error it records. */
  | { kind: 'note'; tone: 'help' | 'warn' | 'error'; text: string; testId?: string }
  /** Fields by name, in this order; absent ones are left out by the table. */
  | { kind: 'fields'; fields: DetailField[] }
  /** Markdown text (a summary, a reply's text). */
  | { kind: 'markdown'; text: string; testId?: string }
  /** User-style content: a string, or text and image blocks; `pre` keeps it verbatim. */
  | { kind: 'content'; content: unknown; as: 'markdown' | 'pre' }
  /** An assistant reply's blocks: text, thinking, redacted thinking, tool calls, images. */
  | { kind: 'assistantContent'; blocks: unknown[] }
  /** The tool call a tool result answers, or the id it names when the call is not in the file. */
  | { kind: 'toolCall'; call: LocatedToolCall | undefined; callId: string }
  /** A tool's result. */
  | { kind: 'toolResult'; toolName: string; isError: boolean; content: unknown }
  /** oh-my-pi's saved tool outputs (`artifact://N`) a result names, each openable. */
  | { kind: 'artifacts'; content: unknown }
  /** A command the user ran and what it printed (`!cmd`, oh-my-pi's Python cells). */
  | { kind: 'command'; head: string[]; body: string[] }
  /** Tokens and cost of a model call; `title` says whose. */
  | { kind: 'usage'; title: string; usage: Record<string, unknown>; testId: string }
  /** A summary's `{readFiles, modifiedFiles}`, else its details as JSON. */
  | { kind: 'fileLists'; details: unknown }
  /** A value as JSON, folded under a title. */
  | { kind: 'json'; title: string; value: unknown; testId?: string }
  /** A long text folded under a title. */
  | { kind: 'folded'; title: string; text: string; testId?: string }
  /** Another entry of the session, selectable; `id` null names none (a branch from before the first entry). */
  | { kind: 'entryLink'; text: string; id: string | null; testId: string }
  /** The calls a tool made to other tools (pi 1.x code mode). */
  | { kind: 'nestedCalls'; calls: NestedCallItem[]; complete: boolean }
  /** A pi 1.x system message: its text, prompt sections (a `null` text removes one) and tool changes. */
  | {
      kind: 'systemPrompt';
      content: string;
      sections: { name: string; text: string | null }[];
      toolsAdded: DeclaredTool[];
      toolsRemoved: string[];
    };

export type DetailSectionKind = DetailSection['kind'];

/** What the detail of an entry needs beyond the entry itself, looked up in the session. */
export interface DetailExtras {
  /** For a tool result: the call it answers, when the session holds it. */
  toolCall?: LocatedToolCall;
  /** For a branch_summary: what its `fromId` means in this file (see `branchSummaryOrigin`). */
  summaryOrigin?: BranchSummaryOrigin;
}

/**
 * What a branch_summary's `fromId` names (docs/format.md#branch-summary-fromid): the leaf that was left
 * (pi 1.x), or the position the branch continues from (pi 0.73, oh-my-pi), which is the summary's own
 * parent. `id` is null for "root".
 */
export interface BranchSummaryOrigin {
  meaning: 'left-leaf' | 'branch-point';
  id: string | null;
}
