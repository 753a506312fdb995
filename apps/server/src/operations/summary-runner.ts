import type { ServerEvent } from '@canopy/protocol';
import type { SessionEntry } from '@canopy/session-core';
import { scrubSecrets, type SummarizeOptions } from '@canopy/summarizer';
import { AppError } from '../errors';
import type { Summarizer, SummaryProgress, SummaryResult } from '../summarizer';

/** What a summarising route passes on to the summariser besides the entries. */
export type SummaryRequestOptions = Pick<
  SummarizeOptions,
  'customInstructions' | 'replaceInstructions' | 'thinkingLevel' | 'dialect' | 'marks' | 'preamble'
>;

/** Who a progress event is about. */
export interface SummaryContext {
  sessionId: string;
  /** The navigation target, or the newest selected entry. */
  targetId: string;
  kind: 'navigate' | 'selection';
}

/**
 * The session's one summary slot, held from the first step of a summarising operation to its end.
 * An abort is the truth (docs/summaries.md#abort): until `commit` the operation writes nothing once
 * aborted; `commit`, called in the session's write queue right before the write, answers false when
 * the abort came first, and after it an abort is answered "too late".
 */
export interface SummarySlot {
  readonly signal: AbortSignal;
  /** True: the write may start, and no abort can stop it now. False: aborted, write nothing. */
  commit(): boolean;
  release(): void;
}

/** The answer to an abort that came after the write had started. */
export const TOO_LATE_MESSAGE =
  'Too late to abort: the summary was already being written to the session file, and it is there now.';

/** What an abort request found: a summary it stopped, one whose write had started, or none. */
export type AbortOutcome = 'aborted' | 'too-late' | 'none';

interface Running {
  controller: AbortController;
  committed: boolean;
  clientId?: string;
}

export interface SummaryRunnerOptions {
  /** Every configured secret (API keys, tokens): scrubbed from failures before they are sent or logged. */
  secrets?: () => readonly string[];
  /**
   * Text increments arriving within this many milliseconds go out as one event (about one frame);
   * the default is 16.
   */
  progressIntervalMs?: number;
}

/**
 * One summary at a time per session. Each holds an AbortController that Esc (abort_summary over
 * the WebSocket or REST), the requesting browser's WebSocket closing, or the HTTP request being
 * dropped can fire; an aborted summary writes nothing.
 */
export class SummaryRunner {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly publish: (event: ServerEvent) => void,
    private readonly options: SummaryRunnerOptions = {},
  ) {}

  /**
   * Claims the session's slot (BUSY when another summary runs there). `linked` aborts it too, e.g.
   * the HTTP request closing before the answer is sent.
   */
  begin(sessionId: string, clientId?: string, linked?: AbortSignal): SummarySlot {
    if (this.running.has(sessionId))
      throw new AppError('BUSY', 'A summary is already being generated for this session.');
    const controller = new AbortController();
    const entry: Running = { controller, committed: false, ...(clientId === undefined ? {} : { clientId }) };
    this.running.set(sessionId, entry);
    const onLinkedAbort = () => {
      if (!entry.committed) controller.abort();
    };
    if (linked?.aborted) controller.abort();
    else linked?.addEventListener('abort', onLinkedAbort, { once: true });
    return {
      signal: controller.signal,
      commit: () => {
        if (controller.signal.aborted) return false;
        entry.committed = true;
        return true;
      },
      release: () => {
        linked?.removeEventListener('abort', onLinkedAbort);
        if (this.running.get(sessionId) === entry) this.running.delete(sessionId);
      },
    };
  }

  /**
   * A slot for an operation that writes no summary (a plain jump): it claims nothing, so plain jumps
   * never refuse each other, but it is BUSY while a summary runs on the session.
   */
  unclaimed(sessionId: string, linked?: AbortSignal): SummarySlot {
    if (this.running.has(sessionId))
      throw new AppError('BUSY', 'A summary is already being generated for this session.');
    const controller = new AbortController();
    let committed = false;
    const onLinkedAbort = () => {
      if (!committed) controller.abort();
    };
    if (linked?.aborted) controller.abort();
    else linked?.addEventListener('abort', onLinkedAbort, { once: true });
    return {
      signal: controller.signal,
      commit: () => {
        if (controller.signal.aborted) return false;
        committed = true;
        return true;
      },
      release: () => linked?.removeEventListener('abort', onLinkedAbort),
    };
  }

  /** Aborts the running summary of a session, unless its write has started. */
  abort(sessionId: string): AbortOutcome {
    const running = this.running.get(sessionId);
    if (!running) return 'none';
    if (running.committed) return 'too-late';
    running.controller.abort();
    return 'aborted';
  }

  /** Aborts every summary requested by that WebSocket connection (it closed) whose write has not started. */
  abortClient(clientId: string): void {
    for (const running of this.running.values()) {
      if (running.clientId === clientId && !running.committed) running.controller.abort();
    }
  }

  /** A text with every configured secret replaced (for anything sent or logged). */
  scrub(text: string): string {
    return scrubSecrets(text, this.options.secrets?.() ?? []);
  }

  /**
   * Runs the summariser, publishing summary_progress (started, progress with step / fraction /
   * increments of text, then done, aborted or failed). Undefined when aborted; SUMMARY_FAILED when
   * the summariser fails.
   */
  async generate(
    summarizer: Summarizer,
    entries: readonly SessionEntry[],
    options: SummaryRequestOptions,
    slot: SummarySlot,
    context: SummaryContext,
  ): Promise<SummaryResult | undefined> {
    const { signal } = slot;
    const publish = (
      phase: 'started' | 'progress' | 'done' | 'aborted' | 'failed',
      extra: Partial<Extract<ServerEvent, { type: 'summary_progress' }>> = {},
    ) =>
      this.publish({
        type: 'summary_progress',
        sessionId: context.sessionId,
        targetId: context.targetId,
        kind: context.kind,
        phase,
        ...extra,
      });
    // Text increments wait here until the interval ends, then go as one event.
    const interval = this.options.progressIntervalMs ?? 16;
    let pending = '';
    let pendingTokens = 0;
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (pending === '' || signal.aborted) return;
      publish('progress', { step: 'generating', delta: pending, tokens: pendingTokens });
      pending = '';
    };
    const onProgress = (p: SummaryProgress) => {
      if (signal.aborted) return;
      if (p.phase === 'generating') {
        pending += p.delta;
        pendingTokens = p.tokens;
        timer ??= setTimeout(flush, interval);
        return;
      }
      flush();
      switch (p.phase) {
        case 'preparing':
        case 'finishing':
          publish('progress', { step: p.phase, fraction: p.fraction });
          return;
        case 'waiting':
          publish('progress', { step: 'waiting', model: p.model });
          return;
        case 'retrying':
          publish('progress', {
            step: 'retrying',
            attempt: p.attempt,
            maxAttempts: p.maxAttempts,
            delayMs: p.delayMs,
            message: this.scrub(p.message),
          });
          return;
      }
    };

    if (signal.aborted) {
      publish('aborted');
      return undefined;
    }
    publish('started');
    try {
      const result = await summarizer.summarize(entries, { signal, ...definedOnly(options), onProgress });
      flush();
      if (signal.aborted) {
        publish('aborted');
        return undefined;
      }
      if (typeof result?.summary !== 'string' || result.summary.trim() === '')
        throw new Error('the summariser returned no text');
      publish('done');
      return result;
    } catch (error) {
      if (timer) clearTimeout(timer);
      if (signal.aborted) {
        publish('aborted');
        return undefined;
      }
      const message = this.scrub(error instanceof Error ? error.message : String(error));
      publish('failed', { message });
      throw new AppError('SUMMARY_FAILED', `Summarisation failed: ${message}`);
    }
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
