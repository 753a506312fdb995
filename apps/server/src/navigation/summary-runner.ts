import type { ServerEvent } from '@canopy/protocol';
import type { SessionEntry } from '@canopy/session-core';
import { AppError } from '../errors';
import type { Summarizer, SummaryResult } from '../summarizer';

export interface SummaryRequestOptions {
  customInstructions?: string;
  replaceInstructions?: boolean;
}

/** Who a progress event is about. */
export interface SummaryContext {
  sessionId: string;
  /** The navigation target, or the newest selected entry. */
  targetId: string;
  kind: 'navigate' | 'selection';
}

/** The session's one summary slot, held from the first step of a summarising operation to its end. */
export interface SummarySlot {
  readonly signal: AbortSignal;
  release(): void;
}

interface Running {
  controller: AbortController;
  clientId?: string;
}

/**
 * One summary at a time per session. Each holds an AbortController that Esc (abort_summary over
 * the WebSocket or REST), the requesting browser's WebSocket closing, or the HTTP request being
 * dropped can fire; an aborted summary writes nothing.
 */
export class SummaryRunner {
  private readonly running = new Map<string, Running>();

  constructor(private readonly publish: (event: ServerEvent) => void) {}

  /**
   * Claims the session's slot (BUSY when another summary runs there). `linked` aborts it too, e.g.
   * the HTTP request closing before the answer is sent.
   */
  begin(sessionId: string, clientId?: string, linked?: AbortSignal): SummarySlot {
    if (this.running.has(sessionId))
      throw new AppError('BUSY', 'A summary is already being generated for this session.');
    const controller = new AbortController();
    const entry: Running = clientId === undefined ? { controller } : { controller, clientId };
    this.running.set(sessionId, entry);
    const onLinkedAbort = () => controller.abort();
    if (linked?.aborted) controller.abort();
    else linked?.addEventListener('abort', onLinkedAbort, { once: true });
    return {
      signal: controller.signal,
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
    const onLinkedAbort = () => controller.abort();
    if (linked?.aborted) controller.abort();
    else linked?.addEventListener('abort', onLinkedAbort, { once: true });
    return {
      signal: controller.signal,
      release: () => linked?.removeEventListener('abort', onLinkedAbort),
    };
  }

  /** Aborts the running summary of a session; false when none runs. */
  abort(sessionId: string): boolean {
    const running = this.running.get(sessionId);
    if (!running) return false;
    running.controller.abort();
    return true;
  }

  /** Aborts every summary requested by that WebSocket connection (it closed). */
  abortClient(clientId: string): void {
    for (const running of this.running.values()) {
      if (running.clientId === clientId) running.controller.abort();
    }
  }

  /**
   * Runs the summariser, publishing summary_progress (started, progress with step / fraction /
   * streamed text, then done, aborted or failed). Undefined when aborted; SUMMARY_FAILED when the
   * summariser fails.
   */
  async generate(
    summarizer: Summarizer,
    entries: readonly SessionEntry[],
    options: SummaryRequestOptions,
    slot: SummarySlot,
    context: SummaryContext,
  ): Promise<SummaryResult | undefined> {
    const { signal } = slot;
    const progress = (
      phase: 'started' | 'progress' | 'done' | 'aborted' | 'failed',
      extra: Partial<
        Pick<Extract<ServerEvent, { type: 'summary_progress' }>, 'step' | 'fraction' | 'text' | 'message'>
      > = {},
    ) =>
      this.publish({
        type: 'summary_progress',
        sessionId: context.sessionId,
        targetId: context.targetId,
        kind: context.kind,
        phase,
        ...extra,
      });
    if (signal.aborted) {
      progress('aborted');
      return undefined;
    }
    progress('started');
    try {
      const result = await summarizer.summarize(entries, {
        signal,
        ...(options.customInstructions !== undefined
          ? { customInstructions: options.customInstructions }
          : {}),
        ...(options.replaceInstructions !== undefined
          ? { replaceInstructions: options.replaceInstructions }
          : {}),
        onProgress: (p) => {
          if (signal.aborted) return;
          progress('progress', {
            step: p.phase,
            ...(p.fraction !== undefined && Number.isFinite(p.fraction)
              ? { fraction: Math.min(1, Math.max(0, p.fraction)) }
              : {}),
            ...(p.text !== undefined ? { text: p.text } : {}),
          });
        },
      });
      if (signal.aborted) {
        progress('aborted');
        return undefined;
      }
      if (typeof result?.summary !== 'string' || result.summary.trim() === '')
        throw new Error('the summariser returned no text');
      progress('done');
      return result;
    } catch (error) {
      if (signal.aborted) {
        progress('aborted');
        return undefined;
      }
      const message = error instanceof Error ? error.message : String(error);
      progress('failed', { message });
      throw new AppError('SUMMARY_FAILED', `Summarisation failed: ${message}`, { cause: error });
    }
  }
}
