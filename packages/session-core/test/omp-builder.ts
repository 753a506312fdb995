// Builds small session files in the shape oh-my-pi 18.3.4 writes them (`session-entries.ts`,
// `session-title-slot.ts`): the fixed-size title line before the header, a v3 header with a UUID
// id, 8-hex entry ids, `model_change {model, role?}`, and its own entry types. Tests of every
// package (session-core, server, e2e) write their fixtures with it; nothing is copied from a real
// session.

import { testUsage } from './messages';

/** oh-my-pi's title line is exactly this many UTF-8 bytes, its newline included. */
export const TITLE_SLOT_BYTES = 256;

type Fields = Record<string, unknown>;

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The title line as oh-my-pi's `serializeTitleSlot` writes it: `{"type":"title","v":1,"title",
 * "source"?,"updatedAt","pad"}` padded with spaces in `pad` to exactly 256 bytes with its newline.
 * A title too long for the line is cut (by code points) until it fits, as oh-my-pi does.
 */
export function titleSlotLine(title: string, updatedAt: string, source?: 'auto' | 'user'): string {
  const line = (text: string, pad: string): string =>
    `${JSON.stringify(
      source
        ? { type: 'title', v: 1, title: text, source, updatedAt, pad }
        : { type: 'title', v: 1, title: text, updatedAt, pad },
    )}\n`;
  let points = [...title];
  while (points.length > 0 && byteLength(line(points.join(''), '')) > TITLE_SLOT_BYTES)
    points = points.slice(0, -1);
  const fitted = points.join('');
  const padBytes = TITLE_SLOT_BYTES - byteLength(line(fitted, ''));
  if (padBytes < 0) throw new Error('title slot metadata does not fit');
  return line(fitted, ' '.repeat(padBytes));
}

export interface OmpAssistantOptions {
  stopReason?: 'stop' | 'toolUse' | 'error' | 'aborted' | 'length';
  provider?: string;
  model?: string;
  errorMessage?: string;
}

/** An oh-my-pi session file, entry by entry; `text()` is the whole file. */
export class OmpSessionBuilder {
  readonly headerId: string;
  private title: { title: string; updatedAt: string; source?: 'auto' | 'user' } | undefined;
  private readonly header: Fields;
  readonly lines: string[] = [];
  private clock: number;
  private counter = 0;
  /** The id of the last entry appended (the parent of the next one by default). */
  leaf: string | null = null;

  /** False for a file in the older shape, without a title line (renames only append title_change). */
  private readonly withTitleLine: boolean;

  constructor(
    options: {
      title?: string;
      cwd?: string;
      headerTitle?: string;
      start?: number;
      id?: string;
      titleLine?: boolean;
    } = {},
  ) {
    this.withTitleLine = options.titleLine ?? true;
    this.clock = options.start ?? Date.UTC(2026, 8, 1, 10, 0, 0);
    this.headerId = options.id ?? '0199a000-0000-7000-8000-000000000001';
    this.header = {
      type: 'session',
      version: 3,
      id: this.headerId,
      timestamp: new Date(this.clock).toISOString(),
      cwd: options.cwd ?? '/work/project',
    };
    if (options.headerTitle !== undefined) this.header.title = options.headerTitle;
    if (options.title !== undefined)
      this.title = { title: options.title, updatedAt: new Date(this.clock).toISOString(), source: 'auto' };
  }

  private stamp(): string {
    this.clock += 1000;
    return new Date(this.clock).toISOString();
  }

  /** An 8-hex-digit id, as oh-my-pi's generator writes them. */
  private nextId(): string {
    this.counter++;
    return this.counter.toString(16).padStart(8, '0');
  }

  /** Appends any entry under `parentId` (default: the leaf) and makes it the leaf. */
  add(type: string, fields: Fields = {}, parentId: string | null = this.leaf): string {
    const id = this.nextId();
    this.lines.push(JSON.stringify({ type, id, parentId, timestamp: this.stamp(), ...fields }));
    this.leaf = id;
    return id;
  }

  message(message: Fields, parentId: string | null = this.leaf): string {
    return this.add('message', { message: { timestamp: this.clock, ...message } }, parentId);
  }

  user(text: string, parentId: string | null = this.leaf): string {
    return this.message({ role: 'user', content: [{ type: 'text', text }] }, parentId);
  }

  assistant(
    content: unknown[] | string,
    options: OmpAssistantOptions = {},
    parentId: string | null = this.leaf,
  ): string {
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    const message: Fields = {
      role: 'assistant',
      content: blocks,
      api: 'anthropic-messages',
      provider: options.provider ?? 'anthropic',
      model: options.model ?? 'claude-sonnet-4-5',
      usage: testUsage(),
      stopReason: options.stopReason ?? 'stop',
    };
    if (options.errorMessage !== undefined) message.errorMessage = options.errorMessage;
    return this.message(message, parentId);
  }

  toolCall(id: string, name: string, args: Fields = {}): Fields {
    return { type: 'toolCall', id, name, arguments: args };
  }

  toolResult(
    toolCallId: string,
    toolName: string,
    text: string,
    parentId: string | null = this.leaf,
  ): string {
    return this.message(
      { role: 'toolResult', toolCallId, toolName, content: [{ type: 'text', text }], isError: false },
      parentId,
    );
  }

  modelChange(model: string, role?: string): string {
    return this.add('model_change', role === undefined ? { model } : { model, role });
  }

  /**
   * oh-my-pi's `setSessionName`: the title line is rewritten (same size) and a title_change entry
   * recording the previous title is appended.
   */
  rename(title: string, source: 'auto' | 'user' = 'user'): string {
    const previousTitle = this.title?.title;
    const updatedAt = this.stamp();
    this.title = { title, updatedAt, source };
    const fields: Fields = { title, source };
    if (previousTitle) fields.previousTitle = previousTitle;
    const id = this.nextId();
    this.lines.push(
      JSON.stringify({ type: 'title_change', id, parentId: this.leaf, timestamp: updatedAt, ...fields }),
    );
    this.leaf = id;
    return id;
  }

  /** oh-my-pi's `appendModelUsage`: parented on the leaf when the side call started. */
  modelUsage(parentId: string | null, purpose = 'title'): string {
    const leafBefore = this.leaf;
    const id = this.add(
      'model_usage',
      {
        purpose,
        role: 'smol',
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        usage: testUsage(),
        stopReason: 'stop',
      },
      parentId,
    );
    // It only becomes the leaf when the leaf did not move meanwhile.
    if (leafBefore !== parentId) this.leaf = leafBefore;
    return id;
  }

  /** The title line alone (empty when the file has none). */
  titleLine(): string {
    return this.title && this.withTitleLine
      ? titleSlotLine(this.title.title, this.title.updatedAt, this.title.source)
      : '';
  }

  /** The whole file. */
  text(): string {
    return `${this.titleLine()}${JSON.stringify(this.header)}\n${this.lines.map((line) => `${line}\n`).join('')}`;
  }
}
