import type { BranchResult, NavigateResult } from '@canopy/protocol';
import type { SessionEntry } from '@canopy/session-core';

/** What `session_before_tree` handlers see (docs/tree-and-context.md#navigate-tree, step 3). */
export interface TreePreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

export interface BeforeTreeEvent {
  sessionId: string;
  preparation: TreePreparation;
  signal: AbortSignal;
}

export interface BeforeTreeResult {
  cancel?: boolean;
  /** Used only when the user asked for a summary. */
  summary?: { summary: string; details?: unknown };
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

export interface TreeEvent {
  sessionId: string;
  newLeafId: string | null;
  oldLeafId: string | null;
  summaryEntry?: SessionEntry;
  fromExtension?: boolean;
}

export interface BeforeBranchEvent {
  sessionId: string;
  entryId: string;
}

export interface BeforeBranchResult {
  cancel?: boolean;
}

export interface BranchEvent {
  sessionId: string;
  /** The new session. */
  newSessionId: string;
  /** The session branched from. */
  previousSessionId: string;
}

export interface ExtensionHandlers {
  session_before_tree: (event: BeforeTreeEvent) => BeforeTreeResult | void | Promise<BeforeTreeResult | void>;
  session_tree: (event: TreeEvent) => void | Promise<void>;
  session_before_branch: (
    event: BeforeBranchEvent,
  ) => BeforeBranchResult | void | Promise<BeforeBranchResult | void>;
  session_branch: (event: BranchEvent) => void | Promise<void>;
}

export type ExtensionEventName = keyof ExtensionHandlers;

export interface ExtensionNavigateOptions {
  summarize?: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

/** The object an extension's default export receives. */
export interface CanopyExtensionApi {
  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandlers[E]): void;
  navigateTree(
    sessionId: string,
    targetId: string,
    options?: ExtensionNavigateOptions,
  ): Promise<NavigateResult>;
  branch(sessionId: string, entryId: string): Promise<BranchResult>;
  log: { info(message: string): void; warn(message: string): void; error(message: string): void };
}

export type CanopyExtension = (api: CanopyExtensionApi) => void | Promise<void>;
