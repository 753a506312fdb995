// Entry builders for the tree-view tests (and any other test that needs small hand-made sessions),
// and the projection that compares two row results exactly. Not part of the public API: tests
// elsewhere import it as `@canopy/session-core/testing`.

import type { SessionEntry } from '../types';
import { testUsage } from '../../test/messages';
import { computeRows, type ComputeRowsOptions } from './flatten';
import type { ViewEntry } from './view-entry';
import type { ViewTree } from './view-tree';

export { idIndexWork } from './id-index';

type Fields = Record<string, unknown>;

/** Builds entries with increasing timestamps, one second apart unless a timestamp is given. */
export class EntryBuilder {
  readonly entries: SessionEntry[] = [];
  private clock: number;

  constructor(start = Date.UTC(2026, 0, 1, 9, 0, 0)) {
    this.clock = start;
  }

  private stamp(timestamp?: string): string {
    if (timestamp !== undefined) return timestamp;
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  add(
    type: string,
    id: string,
    parentId: string | null,
    fields: Fields = {},
    timestamp?: string,
  ): SessionEntry {
    const entry = { type, id, parentId, timestamp: this.stamp(timestamp), ...fields } as SessionEntry;
    this.entries.push(entry);
    return entry;
  }

  message(id: string, parentId: string | null, message: Fields, timestamp?: string): SessionEntry {
    return this.add('message', id, parentId, { message: { timestamp: 0, ...message } }, timestamp);
  }

  user(id: string, parentId: string | null, content: unknown = id, timestamp?: string): SessionEntry {
    return this.message(id, parentId, { role: 'user', content }, timestamp);
  }

  /** An assistant message; a string becomes one text block, an array is the content as-is. */
  assistant(
    id: string,
    parentId: string | null,
    content: unknown = id,
    extra: Fields = {},
    timestamp?: string,
  ): SessionEntry {
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    return this.message(
      id,
      parentId,
      {
        role: 'assistant',
        content: blocks,
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'test',
        usage: testUsage(),
        stopReason: 'stop',
        ...extra,
      },
      timestamp,
    );
  }

  /** An assistant message holding only tool calls (`[callId, name, args]`). */
  toolCalls(
    id: string,
    parentId: string | null,
    calls: [string, string, unknown][],
    timestamp?: string,
  ): SessionEntry {
    const content = calls.map(([callId, name, args]) => ({
      type: 'toolCall',
      id: callId,
      name,
      arguments: args,
    }));
    return this.assistant(id, parentId, content, { stopReason: 'toolUse' }, timestamp);
  }

  toolResult(
    id: string,
    parentId: string | null,
    toolCallId: string,
    toolName: string,
    text: string,
    isError = false,
  ): SessionEntry {
    return this.message(id, parentId, {
      role: 'toolResult',
      toolCallId,
      toolName,
      content: [{ type: 'text', text }],
      isError,
    });
  }

  label(id: string, parentId: string | null, targetId: string, label?: string): SessionEntry {
    return this.add('label', id, parentId, label === undefined ? { targetId } : { targetId, label });
  }
}

/** Labels as SessionManager resolves them: the last label entry per target wins; empty or absent clears. */
export function resolveLabels(entries: readonly SessionEntry[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type !== 'label') continue;
    const { targetId, label } = entry as { targetId?: unknown; label?: unknown };
    if (typeof targetId !== 'string') continue;
    if (typeof label === 'string' && label !== '') labels.set(targetId, label);
    else labels.delete(targetId);
  }
  return labels;
}

/** Everything a row result says, as plain data, so two results compare exactly with toEqual. */
export function projectRows(tree: ViewTree, options: ComputeRowsOptions): unknown {
  const result = computeRows(tree, options);
  return {
    selectedIndex: result.selectedIndex,
    leafIndex: result.leafIndex,
    multipleRoots: result.multipleRoots,
    rows: result.rows.map((r) => [
      r.id,
      r.entry.label,
      r.indent,
      r.displayIndent,
      r.showConnector,
      r.isLast,
      r.gutters,
      r.isVirtualRootChild,
      r.onActivePath,
      r.isLeaf,
      r.isLeafPosition,
      r.visibleParentId,
      r.visibleChildCount,
    ]),
    index: [...result.indexById],
  };
}

/**
 * A chain of user messages `${prefix}${from}`, `${prefix}${from + 1}`… with these texts, whose search
 * texts count their reads.
 */
export function readCountedChain(texts: readonly string[], prefix: string, from = 0) {
  const reads = { count: 0 };
  const entries = texts.map((text, i): ViewEntry => {
    const n = from + i;
    const entry = {
      id: `${prefix}${n}`,
      parentId: n === 0 ? null : `${prefix}${n - 1}`,
      type: 'message',
      role: 'user',
      timestamp: '2026-01-01T00:00:00.000Z',
      text,
      flags: 0,
    } as ViewEntry;
    Object.defineProperty(entry, 'search', {
      enumerable: true,
      get: () => {
        reads.count++;
        return text;
      },
    });
    return entry;
  });
  return { entries, reads };
}
