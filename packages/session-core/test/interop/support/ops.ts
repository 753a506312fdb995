// Random operation sequences over the shared SessionManager API, and a runner that applies them to
// either implementation. Operations name their targets by position (in the current path or in all
// entries), so the same sequence means the same thing to two implementations with different random ids.
// One file because every operation's generator, applier and projection must stay side by side for the
// lockstep runs to mean the same thing.
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import type { TreeSessionApi } from './projection';
import { testUsage } from '../../messages';

/** Which entry an operation aims at, resolved against the session when the operation runs. */
export interface Pick {
  scope: 'path' | 'any';
  index: number;
}

export type Op =
  | { kind: 'message'; message: Record<string, unknown> }
  | { kind: 'thinking'; level: string }
  | { kind: 'model'; provider: string; modelId: string }
  | {
      kind: 'compaction';
      summary: string;
      keep: Pick | { missing: string };
      tokensBefore: number;
      details?: unknown;
      fromHook?: boolean;
    }
  | { kind: 'custom'; customType: string; data?: unknown }
  | { kind: 'customMessage'; customType: string; content: unknown; display: boolean; details?: unknown }
  | { kind: 'sessionInfo'; name: string }
  | { kind: 'label'; target: Pick; label: string | undefined }
  | { kind: 'branch'; target: Pick }
  | { kind: 'resetLeaf' }
  | { kind: 'branchWithSummary'; target: Pick | null; summary: string; details?: unknown; fromHook?: boolean }
  | { kind: 'createBranchedSession'; target: Pick }
  | { kind: 'newSession'; parentSession?: string; id?: string };

/** One step: move the (fake) clock by `dtMs` (0 = same millisecond, negative = a clock jump back), then run. */
export interface Step {
  dtMs: number;
  op: Op;
}

// ---------------------------------------------------------------- values

const specialText = fc.constantFrom(
  '',
  ' ',
  'line one\nline two',
  'crlf\r\nline',
  'separator\u2028inside',
  'lone \ud800 surrogate',
  'quote " and backslash \\',
  'emoji 🌳 and accents café',
  '__proto__',
  '{"type":"session"}',
);

/** Text as agents write it: mostly plain, sometimes any Unicode, sometimes the awkward cases. */
export const textArb = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 5 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  { arbitrary: specialText, weight: 2 },
);

const nonEmptyText = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.constantFrom('Plan the fix', 'x', ' padded name  ', 'ünïcödé 🌳'),
);

const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const textBlock = textArb.map((text) => ({ type: 'text', text }));
const imageBlock = fc.constant({ type: 'image', data: PNG_1PX, mimeType: 'image/png' });
const userContent = fc.oneof(
  textArb,
  fc.array(fc.oneof({ arbitrary: textBlock, weight: 4 }, { arbitrary: imageBlock, weight: 1 }), {
    maxLength: 3,
  }),
);

const messageTime = fc.integer({ min: 1_760_000_000_000, max: 1_790_000_000_000 });

/** JSON data with the keys that trip naive object copies. */
const jsonData = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  {
    // Built through JSON.parse, like a reader would, so that `__proto__` is an own key and not the prototype.
    arbitrary: fc
      .tuple(fc.jsonValue({ maxDepth: 1 }), fc.string(), fc.integer())
      .map(
        ([proto, ctor, n]) =>
          JSON.parse(
            `{"__proto__":${JSON.stringify(proto)},"constructor":${JSON.stringify(ctor)},"nested":{"toString":${n}}}`,
          ) as unknown,
      ),
    weight: 1,
  },
);

const fileDetails = fc.record({
  readFiles: fc.array(fc.constantFrom('src/a.ts', 'src/b.ts', 'README.md'), { maxLength: 3 }),
  modifiedFiles: fc.array(fc.constantFrom('src/a.ts', 'test/a.test.ts'), { maxLength: 2 }),
});
const detailsArb = fc.oneof(fileDetails, jsonData);

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

const toolNames = fc.constantFrom('read', 'bash', 'edit', 'write', 'grep');

const userMessage = fc.record({ role: fc.constant('user'), content: userContent, timestamp: messageTime });

const assistantMessage = fc.record(
  {
    role: fc.constant('assistant'),
    content: fc.array(
      fc.oneof(
        textBlock,
        textArb.map((thinking) => ({ type: 'thinking', thinking })),
        fc.record({
          type: fc.constant('toolCall'),
          id: fc.string({ minLength: 1, maxLength: 12 }),
          name: toolNames,
          arguments: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
            maxKeys: 3,
          }),
        }),
      ),
      { maxLength: 4 },
    ),
    api: fc.constantFrom('anthropic-messages', 'openai-responses', 'google-generative-ai'),
    provider: fc.constantFrom('anthropic', 'openai', 'google'),
    model: fc.constantFrom('claude-sonnet-4-5', 'claude-opus-4-5', 'gpt-5', 'gemini-2.5-pro'),
    usage: usageArb,
    stopReason: fc.constantFrom('stop', 'length', 'toolUse', 'error', 'aborted'),
    errorMessage: textArb,
    timestamp: messageTime,
    responseId: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['role', 'content', 'api', 'provider', 'model', 'usage', 'stopReason', 'timestamp'] },
);

const toolResultMessage = fc.record(
  {
    role: fc.constant('toolResult'),
    toolCallId: fc.string({ minLength: 1, maxLength: 12 }),
    toolName: toolNames,
    content: fc.array(fc.oneof({ arbitrary: textBlock, weight: 5 }, { arbitrary: imageBlock, weight: 1 }), {
      maxLength: 2,
    }),
    details: jsonData,
    isError: fc.boolean(),
    timestamp: messageTime,
  },
  { requiredKeys: ['role', 'toolCallId', 'toolName', 'content', 'isError', 'timestamp'] },
);

const bashExecutionMessage = fc.record(
  {
    role: fc.constant('bashExecution'),
    command: textArb,
    output: textArb,
    exitCode: fc.option(fc.integer({ min: -1, max: 255 }), { nil: undefined }),
    cancelled: fc.boolean(),
    truncated: fc.boolean(),
    fullOutputPath: fc.constantFrom('/tmp/pi-bash-1.log', '/tmp/out.txt'),
    excludeFromContext: fc.boolean(),
    timestamp: messageTime,
  },
  { requiredKeys: ['role', 'command', 'output', 'exitCode', 'cancelled', 'truncated', 'timestamp'] },
);

const customRoleMessage = fc.record(
  {
    role: fc.constantFrom('custom', 'hookMessage'),
    customType: fc.constantFrom('git-status', 'preset', 'todo'),
    content: userContent,
    display: fc.boolean(),
    details: jsonData,
    timestamp: messageTime,
  },
  { requiredKeys: ['role', 'customType', 'content', 'display', 'timestamp'] },
);

/** Roles the reference does not know (oh-my-pi's fileMention, newer agents' developer) pass through. */
const otherRoleMessage = fc.oneof(
  fc.record({
    role: fc.constant('fileMention'),
    files: fc.array(
      fc.record({ path: fc.constantFrom('src/a.ts'), content: textArb, lineCount: fc.nat(50) }),
      {
        maxLength: 2,
      },
    ),
    timestamp: messageTime,
  }),
  fc.record({ role: fc.constant('developer'), content: textArb, timestamp: messageTime, extra: jsonData }),
);

export const messageArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { arbitrary: userMessage, weight: 6 },
  { arbitrary: assistantMessage, weight: 6 },
  { arbitrary: toolResultMessage, weight: 4 },
  { arbitrary: bashExecutionMessage, weight: 2 },
  { arbitrary: customRoleMessage, weight: 1 },
  { arbitrary: otherRoleMessage, weight: 1 },
);

// ---------------------------------------------------------------- operations

/** A target by position, mostly on the current path. */
export const pickArb: fc.Arbitrary<Pick> = fc.record({
  scope: fc.constantFrom<Pick['scope']>('path', 'path', 'any'),
  index: fc.nat(1_000),
});

const labelArb = fc.oneof(
  { arbitrary: nonEmptyText, weight: 4 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant(''), weight: 1 },
);

const optionalFromHook = fc.option(fc.boolean(), { nil: undefined });
const optionalDetails = fc.option(detailsArb, { nil: undefined });

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: messageArb.map((message): Op => ({ kind: 'message', message })), weight: 40 },
  {
    arbitrary: fc
      .constantFrom('off', 'minimal', 'low', 'medium', 'high', 'xhigh')
      .map((level): Op => ({ kind: 'thinking', level })),
    weight: 4,
  },
  {
    arbitrary: fc
      .record({ provider: fc.constantFrom('anthropic', 'openai', 'local'), modelId: nonEmptyText })
      .map((change): Op => ({ kind: 'model', ...change })),
    weight: 4,
  },
  {
    arbitrary: fc
      .record({
        summary: textArb,
        keep: fc.oneof(
          { arbitrary: pickArb, weight: 5 },
          { arbitrary: fc.constantFrom('nope0000', '').map((missing) => ({ missing })), weight: 1 },
        ),
        tokensBefore: fc.nat(500_000),
        details: optionalDetails,
        fromHook: optionalFromHook,
      })
      .map((compaction): Op => ({ kind: 'compaction', ...compaction })),
    weight: 5,
  },
  {
    arbitrary: fc
      .record({
        customType: fc.constantFrom('preset-state', 'todo', 'x'),
        data: fc.option(jsonData, { nil: undefined }),
      })
      .map((custom): Op => ({ kind: 'custom', ...custom })),
    weight: 4,
  },
  {
    arbitrary: fc
      .record({
        customType: fc.constantFrom('reminder', 'git-status'),
        content: userContent,
        display: fc.boolean(),
        details: optionalDetails,
      })
      .map((custom): Op => ({ kind: 'customMessage', ...custom })),
    weight: 5,
  },
  {
    // Blank names matter: the reference's getSessionName lets the latest session_info win even when empty.
    arbitrary: fc
      .oneof(nonEmptyText, fc.constantFrom('', '   '), textArb)
      .map((name): Op => ({ kind: 'sessionInfo', name })),
    weight: 3,
  },
  {
    arbitrary: fc
      .record({ target: pickArb, label: labelArb })
      .map((label): Op => ({ kind: 'label', ...label })),
    weight: 8,
  },
  { arbitrary: pickArb.map((target): Op => ({ kind: 'branch', target })), weight: 10 },
  { arbitrary: fc.constant<Op>({ kind: 'resetLeaf' }), weight: 2 },
  {
    arbitrary: fc
      .record({
        target: fc.option(pickArb, { nil: null, freq: 4 }),
        summary: fc.oneof({ arbitrary: textArb, weight: 4 }, { arbitrary: fc.constant(''), weight: 1 }),
        details: optionalDetails,
        fromHook: optionalFromHook,
      })
      .map((summary): Op => ({ kind: 'branchWithSummary', ...summary })),
    weight: 6,
  },
  { arbitrary: pickArb.map((target): Op => ({ kind: 'createBranchedSession', target })), weight: 2 },
  {
    arbitrary: fc
      .record(
        {
          parentSession: fc.constantFrom('/sessions/parent.jsonl', 'parent.jsonl'),
          id: fc.uuid(),
        },
        { requiredKeys: [] },
      )
      .map((options): Op => ({ kind: 'newSession', ...options })),
    weight: 1,
  },
);

/** Mostly small steps forward, often the same millisecond, sometimes a clock jump backwards. */
export const dtArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 5_000 }), weight: 6 },
  { arbitrary: fc.integer({ min: -120_000, max: -1 }), weight: 1 },
);

const stepArb: fc.Arbitrary<Step> = fc.record({ dtMs: dtArb, op: opArb });

const firstExchange: Step[] = [
  {
    dtMs: 0,
    op: {
      kind: 'message',
      message: { role: 'user', content: 'Fix the failing test', timestamp: 1_772_000_000_000 },
    },
  },
  {
    dtMs: 1_000,
    op: {
      kind: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'Looking at it.' }],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: testUsage(10, 5),
        stopReason: 'stop',
        timestamp: 1_772_000_001_000,
      },
    },
  },
];

/**
 * A sequence of steps. Most start with a user + assistant exchange, because the reference only creates its
 * file at the first assistant message; the rest exercise the lazy first write too.
 */
export const stepsArb = (maxLength: number): fc.Arbitrary<Step[]> =>
  fc
    .tuple(fc.boolean(), fc.boolean(), fc.boolean(), fc.array(stepArb, { minLength: 1, maxLength }))
    .map(([a, b, c, steps]) => (a || b || c ? [...firstExchange, ...steps] : steps));

/** An assistant message, appended when a sequence left the reference without a file yet (lazy first write). */
export const flushStep: Step = firstExchange[1] as Step;

// ---------------------------------------------------------------- running

/** The id a pick names in the session now (undefined on an empty session). */
export function resolvePick(session: TreeSessionApi, pick: Pick): string | undefined {
  const path = pick.scope === 'path' ? session.getBranch() : [];
  const pool = path.length > 0 ? path : session.getEntries();
  if (pool.length === 0) return undefined;
  return pool[pick.index % pool.length]?.id;
}

/** What one step did, in terms both implementations can compare. */
export type StepOutcome = 'applied' | 'skipped';

/**
 * Applies one step. Operations that need a target are skipped on an empty session (both implementations
 * see the same entry count, so they skip the same steps). `setTime` moves the fake clock.
 */
export interface StepHooks {
  /** Runs right after a createBranchedSession step (see reparentPastDroppedLabels). */
  afterCreateBranchedSession?: (session: TreeSessionApi) => void;
}

export function applyStep(
  session: TreeSessionApi,
  step: Step,
  clock: { now: number; set(ms: number): void },
  hooks: StepHooks = {},
): StepOutcome {
  clock.now += step.dtMs;
  clock.set(clock.now);
  const op = step.op;
  // Each implementation gets its own copy, so neither can observe the other mutating a shared object.
  const copy = <T>(value: T): T => structuredClone(value);
  switch (op.kind) {
    case 'message':
      session.appendMessage(copy(op.message));
      return 'applied';
    case 'thinking':
      session.appendThinkingLevelChange(op.level);
      return 'applied';
    case 'model':
      session.appendModelChange(op.provider, op.modelId);
      return 'applied';
    case 'compaction': {
      const keep = 'missing' in op.keep ? op.keep.missing : resolvePick(session, op.keep);
      if (keep === undefined) return 'skipped';
      session.appendCompaction(op.summary, keep, op.tokensBefore, copy(op.details), op.fromHook);
      return 'applied';
    }
    case 'custom':
      session.appendCustomEntry(op.customType, copy(op.data));
      return 'applied';
    case 'customMessage':
      session.appendCustomMessageEntry(op.customType, copy(op.content), op.display, copy(op.details));
      return 'applied';
    case 'sessionInfo':
      session.appendSessionInfo(op.name);
      return 'applied';
    case 'label': {
      const target = resolvePick(session, op.target);
      if (target === undefined) return 'skipped';
      session.appendLabelChange(target, op.label);
      return 'applied';
    }
    case 'branch': {
      const target = resolvePick(session, op.target);
      if (target === undefined) return 'skipped';
      session.branch(target);
      return 'applied';
    }
    case 'resetLeaf':
      session.resetLeaf();
      return 'applied';
    case 'branchWithSummary': {
      const target = op.target === null ? null : resolvePick(session, op.target);
      if (target === undefined) return 'skipped';
      session.branchWithSummary(target, op.summary, copy(op.details), op.fromHook);
      return 'applied';
    }
    case 'createBranchedSession': {
      const target = resolvePick(session, op.target);
      if (target === undefined) return 'skipped';
      session.createBranchedSession(target);
      hooks.afterCreateBranchedSession?.(session);
      return 'applied';
    }
    case 'newSession': {
      const options: { parentSession?: string; id?: string } = {};
      if (op.parentSession !== undefined) options.parentSession = op.parentSession;
      if (op.id !== undefined) options.id = op.id;
      session.newSession(options);
      return 'applied';
    }
  }
}

/**
 * The reference writes nothing before the first assistant message of a session (docs/format.md#writing),
 * so after createBranchedSession to an assistant-free path its file may not exist yet. This
 * appends `flushStep` in that case and says whether the file already existed.
 */
export function ensureReferenceFile(
  ref: { getSessionFile(): string | undefined },
  clock: { now: number; set(ms: number): void },
): boolean {
  const file = ref.getSessionFile();
  if (file !== undefined && existsSync(file)) return true;
  applyStep(ref as unknown as TreeSessionApi, flushStep, clock);
  return false;
}

/** Applies every step in order and returns what each did. */
export function applySteps(
  session: TreeSessionApi,
  steps: readonly Step[],
  clock: { now: number; set(ms: number): void },
  hooks: StepHooks = {},
): StepOutcome[] {
  return steps.map((step) => applyStep(session, step, clock, hooks));
}

/**
 * The one deliberate difference in createBranchedSession: the reference copies the path without its
 * label entries verbatim, so an entry that followed a dropped label keeps the label's id as parent and
 * becomes an orphan root of the new session; session-core hangs it from its nearest kept ancestor
 * (as oh-my-pi's newest version does). For comparisons entry by entry, this applies the same repair to
 * the reference's in-memory session (its `fileEntries`, then its own `_buildIndex`), right after the
 * step, so later steps see the same tree on both sides.
 */
export function reparentPastDroppedLabels(session: TreeSessionApi): void {
  const internals = session as unknown as {
    fileEntries: { type: string; id?: string; parentId?: string | null }[];
    _buildIndex(): void;
  };
  const entries = internals.fileEntries.filter((entry) => entry.type !== 'session');
  const ids = new Set(entries.map((entry) => entry.id));
  // The branched session is one chain (path, then fresh label entries): a missing parent is the
  // dropped label between an entry and the one before it, or above the first entry (a label root).
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (typeof entry.parentId === 'string' && !ids.has(entry.parentId)) {
      entry.parentId = i === 0 ? null : (entries[i - 1]!.id ?? null);
    }
  }
  internals._buildIndex();
}
