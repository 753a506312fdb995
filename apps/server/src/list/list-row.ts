import {
  sessionInfoName,
  titleChangeTitle,
  userMessageText,
  type SessionEntry,
  type TitleSlot,
} from '@canopy/session-core';
import type { FileIdentity } from '../files/files';

/** The facts of a list row that come from the entries, counted one entry at a time. */
export interface RowFacts {
  entryCount: number;
  messageCount: number;
  /** The first user message's text, at most 300 characters. */
  firstMessage: string;
  /** The name set by the latest session_info (pi); a blank one clears it. */
  infoName?: string;
  /** [oh-my-pi] The title of the latest title_change entry. */
  titleChange?: string;
}

export function emptyRowFacts(): RowFacts {
  return { entryCount: 0, messageCount: 0, firstMessage: '' };
}

/** Counts entries into a row's facts (the index while it reads a file, an open session as it grows). */
export function countEntries(facts: RowFacts, entries: Iterable<SessionEntry>): void {
  for (const entry of entries) {
    facts.entryCount++;
    if (entry.type === 'message') {
      facts.messageCount++;
      if (facts.firstMessage === '') {
        const text = userMessageText(entry.message);
        if (text) facts.firstMessage = text.length > 300 ? text.slice(0, 300) : text;
      }
    } else if (entry.type === 'session_info') {
      facts.infoName = sessionInfoName(entry);
    } else if (entry.type === 'title_change') {
      facts.titleChange = titleChangeTitle(entry);
    }
  }
}

/** An open session's own state, which stands in for reading its file while it is open. */
export interface OpenRow {
  facts: RowFacts;
  header?: Record<string, unknown>;
  titleSlot?: TitleSlot;
  identity: FileIdentity;
  issueCount: number;
  /** Whether the header's version as written is known (the header may be migrated in memory). */
  versionKnown: boolean;
}
