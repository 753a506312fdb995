// Random operation sequences for the lockstep suite against pi 1.6.0: the 0.73.1 suite's operations
// (../../interop/support/ops.ts) plus what pi 1.x added: context edits (valid, and each refusal:
// unknown target, off the active branch, not editable, a bad replacement), usage entries, system
// messages and patches, assistant replies and tool results with the 1.x fields, compactions that keep
// nothing or carry usage, and branch summaries with usage. Targets are named by position, so the same
// sequence means the same thing to both implementations.
import fc from 'fast-check';
import {
  applyStep as applySharedStep,
  dtArb,
  messageArb,
  opArb,
  pickArb,
  resolvePick,
  textArb,
  type Op,
  type Pick,
  type StepOutcome as SharedOutcome,
} from '../../interop/support/ops';
import type { EntryLike, TreeSessionApi } from '../../interop/support/projection';

/** The pi 1.x additions to the shared API (pi 1.6 and session-core both have them). */
export interface Pi16SessionApi extends TreeSessionApi {
  appendContextEdit(targetId: string, replacement: unknown): string;
  appendUsage(kind: string, provider: string, model: string, usage: unknown, note?: string): unknown;
  appendCompaction(
    summary: string,
    firstKeptEntryId: string | null | undefined,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
    usage?: unknown,
  ): string;
  branchWithSummary(
    fromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
    usage?: unknown,
  ): string;
}

export type EditTarget = { pick: number } | { refusal: 'missing' | 'off-path' | 'not-editable' };

export type Op16 =
  | Op
  | { kind: 'contextEdit'; target: EditTarget; replacement: unknown }
  | { kind: 'usage'; usageKind: string; provider: string; model: string; usage: unknown; note?: string }
  | {
      kind: 'compaction16';
      summary: string;
      keep: Pick | { missing: string } | 'none';
      tokensBefore: number;
      details?: unknown;
      fromHook?: boolean;
      usage?: unknown;
    }
  | {
      kind: 'branchWithSummary16';
      target: Pick | null;
      summary: string;
      details?: unknown;
      fromHook?: boolean;
      usage?: unknown;
    };

export interface Step16 {
  dtMs: number;
  op: Op16;
}

/** What a step did: applied, skipped (no target), or refused with this message by the implementation. */
export type StepOutcome = SharedOutcome | `refused: ${string}`;

// ---------------------------------------------------------------- values

const usageArb = fc.record({
  input: fc.nat(100_000),
  output: fc.nat(10_000),
  cacheRead: fc.nat(50_000),
  cacheWrite: fc.nat(5_000),
  totalTokens: fc.nat(200_000),
  cost: fc.record({
    input: fc.double({ min: 0, max: 5, noNaN: true }),
    output: fc.double({ min: 0, max: 5, noNaN: true }),
    cacheRead: fc.constant(0),
    cacheWrite: fc.constant(0),
    total: fc.double({ min: 0, max: 10, noNaN: true }),
  }),
});
const messageTime = fc.integer({ min: 1_790_000_000_000, max: 1_800_000_000_000 });
const textBlocks = fc.array(
  textArb.map((text) => ({ type: 'text', text })),
  { maxLength: 2 },
);

const systemMessage = fc.record(
  {
    role: fc.constant('system'),
    content: fc.oneof(fc.constant(''), textArb, textBlocks),
    sections: fc.dictionary(
      fc.constantFrom('preamble', 'tools', 'skills', 'cwd'),
      fc.option(textArb, { nil: null }),
      {
        maxKeys: 3,
      },
    ),
    toolsAdded: fc.array(
      fc.record({
        name: fc.constantFrom('read', 'bash', 'edit'),
        description: textArb,
        parameters: fc.constant({}),
      }),
      { maxLength: 2 },
    ),
    toolsRemoved: fc.array(fc.record({ name: fc.constantFrom('write', 'edit') }), { maxLength: 1 }),
    timestamp: messageTime,
  },
  { requiredKeys: ['role', 'content', 'timestamp'] },
);

const assistant16 = fc.record(
  {
    role: fc.constant('assistant'),
    content: fc.array(
      fc.oneof(
        textArb.map((text) => ({ type: 'text', text })),
        textArb.map((thinking) => ({ type: 'thinking', thinking })),
        fc.constant({ type: 'toolCall', id: 'call-1', name: 'read', arguments: { path: 'src/a.ts' } }),
      ),
      { maxLength: 3 },
    ),
    api: fc.constant('anthropic-messages'),
    provider: fc.constantFrom('anthropic', 'openai'),
    model: fc.constantFrom('claude-sonnet-4-5', 'gpt-5'),
    responseModel: fc.constantFrom('claude-sonnet-4-5-20260901', 'gpt-5-2026'),
    thinkingLevel: fc.constantFrom('off', 'medium', 'high'),
    providerThinkingLevel: fc.constantFrom('low', 'high'),
    rawStopReason: fc.constantFrom('end_turn', 'tool_use'),
    endTurn: fc.boolean(),
    usage: usageArb,
    stopReason: fc.constantFrom('stop', 'toolUse', 'error', 'deferred'),
    deferred: fc.record({ id: fc.string({ maxLength: 8 }) }),
    timestamp: messageTime,
  },
  { requiredKeys: ['role', 'content', 'api', 'provider', 'model', 'usage', 'stopReason', 'timestamp'] },
);

const toolResult16 = fc.record(
  {
    role: fc.constant('toolResult'),
    toolCallId: fc.constant('call-1'),
    toolName: fc.constantFrom('read', 'code'),
    content: textBlocks,
    isError: fc.boolean(),
    usage: usageArb,
    nestedCalls: fc.record({
      calls: fc.array(
        fc.record(
          {
            id: fc.string({ minLength: 1, maxLength: 6 }),
            name: fc.constantFrom('bash', 'read'),
            arguments: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), {
              maxKeys: 2,
            }),
            argumentsBytes: fc.nat(100_000),
            status: fc.constantFrom('ok', 'error', 'unfinished'),
          },
          { requiredKeys: ['id', 'name', 'status'] },
        ),
        { maxLength: 2 },
      ),
      complete: fc.boolean(),
    }),
    durationMs: fc.nat(60_000),
    timestamp: messageTime,
  },
  { requiredKeys: ['role', 'toolCallId', 'toolName', 'content', 'isError', 'timestamp'] },
);

/** A message without content, as an old or hand-edited file may hold: pi 1.x sends it empty. */
const contentless = fc
  .constantFrom('user', 'assistant', 'toolResult', 'system')
  .chain((role) => messageTime.map((timestamp) => ({ role, timestamp, provider: 'p', model: 'm' })));

const message16: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { arbitrary: messageArb, weight: 8 },
  { arbitrary: systemMessage, weight: 2 },
  { arbitrary: assistant16, weight: 2 },
  { arbitrary: toolResult16, weight: 1 },
  { arbitrary: contentless, weight: 1 },
);

const replacementArb = fc.oneof(
  { arbitrary: fc.constant(null), weight: 3 },
  { arbitrary: textArb.map((content) => ({ content })), weight: 3 },
  { arbitrary: textBlocks.map((content) => ({ content })), weight: 2 },
  // pi refuses these: no content, or content that is neither a string nor blocks.
  { arbitrary: fc.constantFrom({}, { content: 42 }, 'text'), weight: 1 },
);

const op16: fc.Arbitrary<Op16> = fc.oneof(
  { arbitrary: opArb.filter((op) => op.kind !== 'message'), weight: 60 },
  { arbitrary: message16.map((message): Op16 => ({ kind: 'message', message })), weight: 40 },
  {
    arbitrary: fc
      .record({
        target: fc.oneof(
          { arbitrary: fc.nat(1_000).map((pick): EditTarget => ({ pick })), weight: 6 },
          {
            arbitrary: fc
              .constantFrom('missing' as const, 'off-path' as const, 'not-editable' as const)
              .map((refusal): EditTarget => ({ refusal })),
            weight: 1,
          },
        ),
        replacement: replacementArb,
      })
      .map((edit): Op16 => ({ kind: 'contextEdit', ...edit })),
    weight: 12,
  },
  {
    arbitrary: fc
      .record(
        {
          usageKind: fc.constantFrom('cache_warm', 'title', 'x'),
          provider: fc.constantFrom('anthropic', 'openai'),
          model: fc.constantFrom('claude-sonnet-4-5', 'gpt-5'),
          usage: usageArb,
          note: fc.constantFrom('', 'extension override'),
        },
        { requiredKeys: ['usageKind', 'provider', 'model', 'usage'] },
      )
      .map((usage): Op16 => ({ kind: 'usage', ...usage })),
    weight: 4,
  },
  {
    arbitrary: fc
      .record(
        {
          summary: textArb,
          keep: fc.oneof(
            { arbitrary: pickArb, weight: 4 },
            { arbitrary: fc.constant<'none'>('none'), weight: 1 },
            { arbitrary: fc.constant({ missing: 'nope0000' }), weight: 1 },
          ),
          tokensBefore: fc.nat(500_000),
          details: fc.record({ readFiles: fc.constant(['a.ts']), modifiedFiles: fc.constant([]) }),
          fromHook: fc.boolean(),
          usage: usageArb,
        },
        { requiredKeys: ['summary', 'keep', 'tokensBefore'] },
      )
      .map((compaction): Op16 => ({ kind: 'compaction16', ...compaction })),
    weight: 4,
  },
  {
    arbitrary: fc
      .record(
        {
          target: fc.option(pickArb, { nil: null, freq: 4 }),
          summary: textArb,
          details: fc.record({ readFiles: fc.constant(['a.ts']), modifiedFiles: fc.constant(['b.ts']) }),
          fromHook: fc.boolean(),
          usage: usageArb,
        },
        { requiredKeys: ['target', 'summary'] },
      )
      .map((summary): Op16 => ({ kind: 'branchWithSummary16', ...summary })),
    weight: 6,
  },
);

const firstExchange: Step16[] = [
  {
    dtMs: 0,
    op: {
      kind: 'message',
      message: { role: 'system', content: '', sections: { cwd: '/p' }, timestamp: 1_790_000_000_000 },
    },
  },
  {
    dtMs: 0,
    op: {
      kind: 'message',
      message: { role: 'user', content: 'Fix the failing test', timestamp: 1_790_000_000_000 },
    },
  },
];

/**
 * A sequence of steps. Most start as pi 1.6 sessions do (the system message, then the user's first
 * message, which makes pi write its file); the rest exercise the lazy first write too.
 */
export const steps16Arb = (maxLength: number): fc.Arbitrary<Step16[]> =>
  fc
    .tuple(
      fc.boolean(),
      fc.boolean(),
      fc.array(fc.record({ dtMs: dtArb, op: op16 }), { minLength: 1, maxLength }),
    )
    .map(([a, b, steps]) => (a || b ? [...firstExchange, ...steps] : steps));

// ---------------------------------------------------------------- running

function isEditable(entry: EntryLike): boolean {
  if (entry.type === 'custom_message') return true;
  const role = (entry as { message?: { role?: unknown } }).message?.role;
  return entry.type === 'message' && (role === 'user' || role === 'assistant' || role === 'toolResult');
}

/** The id a context edit aims at, or undefined when the session holds no such entry (skipped). */
function editTarget(session: TreeSessionApi, target: EditTarget): string | undefined {
  const path = session.getBranch();
  if ('pick' in target) {
    const editable = path.filter(isEditable);
    return editable.length === 0 ? undefined : editable[target.pick % editable.length]?.id;
  }
  switch (target.refusal) {
    case 'missing':
      return 'nope0000';
    case 'off-path': {
      const onPath = new Set(path.map((entry) => entry.id));
      return session.getEntries().find((entry) => !onPath.has(entry.id))?.id;
    }
    case 'not-editable':
      return path.find((entry) => !isEditable(entry))?.id;
  }
}

/** Runs an append that may be refused; the refusal's message names the target by position, as ids differ. */
function refusal(session: TreeSessionApi, target: string, run: () => void): StepOutcome {
  try {
    run();
    return 'applied';
  } catch (error) {
    const position = session.getEntries().findIndex((entry) => entry.id === target);
    const named = position < 0 ? target : `#${position}`;
    return `refused: ${(error as Error).message.replace(target, named)}`;
  }
}

export function applyStep16(
  session: Pi16SessionApi,
  step: Step16,
  clock: { now: number; set(ms: number): void },
): StepOutcome {
  const op = step.op;
  const copy = <T>(value: T): T => structuredClone(value);
  switch (op.kind) {
    case 'contextEdit': {
      clock.now += step.dtMs;
      clock.set(clock.now);
      const target = editTarget(session, op.target);
      if (target === undefined) return 'skipped';
      return refusal(session, target, () => session.appendContextEdit(target, copy(op.replacement)));
    }
    case 'usage':
      clock.now += step.dtMs;
      clock.set(clock.now);
      session.appendUsage(op.usageKind, op.provider, op.model, copy(op.usage), op.note);
      return 'applied';
    case 'compaction16': {
      clock.now += step.dtMs;
      clock.set(clock.now);
      let keep: string | null | undefined;
      if (op.keep === 'none') keep = null;
      else if ('missing' in op.keep) keep = op.keep.missing;
      else {
        keep = resolvePick(session, op.keep);
        if (keep === undefined) return 'skipped';
      }
      session.appendCompaction(
        op.summary,
        keep,
        op.tokensBefore,
        copy(op.details),
        op.fromHook,
        copy(op.usage),
      );
      return 'applied';
    }
    case 'branchWithSummary16': {
      clock.now += step.dtMs;
      clock.set(clock.now);
      const target = op.target === null ? null : resolvePick(session, op.target);
      if (target === undefined) return 'skipped';
      session.branchWithSummary(target, op.summary, copy(op.details), op.fromHook, copy(op.usage));
      return 'applied';
    }
    default:
      return applySharedStep(session, { dtMs: step.dtMs, op }, clock);
  }
}

export function applySteps16(
  session: Pi16SessionApi,
  steps: readonly Step16[],
  clock: { now: number; set(ms: number): void },
): StepOutcome[] {
  return steps.map((step) => applyStep16(session, step, clock));
}

/** A user message, appended when a sequence left pi 1.6 without a file yet (it writes from the first one). */
export const flushStep16: Step16 = firstExchange[1] as Step16;
