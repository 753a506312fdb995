// The offline summariser: a deterministic summary built from the entries' own text, no network.
// It uses the section shape of pi's structured summary (Goal, Progress, Key Decisions, Next Steps,
// Critical Context), fits a character budget by cutting list items (saying how many) and clipping
// long lines (ending them with "…"), and appends pi's file lists.
import {
  BRANCH_SUMMARY_PREAMBLE,
  computeFileLists,
  formatFileListsSuffix,
  prepareBranchEntries,
  type SessionEntry,
} from '@canopy/session-core';
import { throwIfAborted } from './abort';
import { gatherFacts, oneLine, type OfflineFacts, type ToolGroup, type Turn } from './offline-facts';
import type { SummarizeOptions, Summarizer, SummaryResult } from './types';

export const OFFLINE_SUMMARIZER_ID = 'offline';
/** About 1,500 tokens: below the 2,048 tokens pi allows an LLM summary. */
export const DEFAULT_OFFLINE_BUDGET_CHARS = 6000;
/** Below this not even the headings and the "omitted" notes fit. */
export const MIN_OFFLINE_BUDGET_CHARS = 1000;
/** Line lengths tried in turn, longest first, until every non-empty list shows at least one item. */
const LINE_CAPS = [400, 200, 100];

interface Section {
  heading: string;
  /** A line under the heading, clipped like the items. */
  lead?: string;
  items: string[];
  /** Item prefix; numbered lists use "1. ", "2. ", … */
  bullet: string | 'numbered';
  /** Shown when there are no items; a section without items and without this is left out. */
  empty?: string;
  /** Lower fills first when the budget is short. */
  priority: number;
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function itemLine(section: Section, index: number, lineCap: number): string {
  const prefix = section.bullet === 'numbered' ? `${index + 1}. ` : section.bullet;
  return prefix + clip(section.items[index] ?? '', lineCap);
}

function omittedLine(count: number): string {
  return `- … ${count} more omitted`;
}

/** Which items the first `keep` are: the first and the last ones (the start and the end of the story). */
function keptRange(length: number, keep: number): { head: number; tailStart: number } {
  const kept = Math.min(keep, length);
  const head = Math.ceil(kept / 2);
  return { head, tailStart: length - (kept - head) };
}

function renderItems(section: Section, keep: number, lineCap: number): string[] {
  const length = section.items.length;
  if (length === 0) return section.empty ? [section.empty] : [];
  const { head, tailStart } = keptRange(length, keep);
  const lines: string[] = [];
  for (let i = 0; i < head; i++) lines.push(itemLine(section, i, lineCap));
  if (tailStart > head) lines.push(omittedLine(tailStart - head));
  for (let i = tailStart; i < length; i++) lines.push(itemLine(section, i, lineCap));
  return lines;
}

function renderSection(section: Section, keep: number, lineCap: number): string | undefined {
  const lines = renderItems(section, keep, lineCap);
  if (lines.length === 0) return undefined;
  const lead = section.lead === undefined ? [] : [clip(section.lead, lineCap)];
  return [section.heading, ...lead, ...lines].join('\n');
}

function render(
  intro: string,
  sections: readonly Section[],
  keeps: readonly number[],
  lineCap: number,
): string {
  const blocks = [intro];
  sections.forEach((section, i) => {
    const block = renderSection(section, keeps[i] ?? 0, lineCap);
    if (block !== undefined) blocks.push(block);
  });
  return BRANCH_SUMMARY_PREAMBLE + blocks.join('\n\n');
}

/**
 * Fills the lists one item at a time, in turn by priority, while the text stays within the budget;
 * a list whose next item does not fit gets no more. Long lines are clipped shorter when that is
 * what it takes for every non-empty list to show an item. The length is kept as a running count
 * while items are added and the text is rendered once, so a 10,000-entry input costs little more
 * than a short one.
 */
function fitToBudget(intro: string, sections: readonly Section[], budgetChars: number): string {
  const order = sections
    .map((_, i) => i)
    .sort((a, b) => (sections[a]?.priority ?? 0) - (sections[b]?.priority ?? 0));
  let keeps: number[] = [];
  let chosenCap = LINE_CAPS[0] as number;
  for (const lineCap of LINE_CAPS) {
    chosenCap = lineCap;
    keeps = sections.map(() => 0);
    // With nothing kept, each non-empty list is only its "N more omitted" line.
    let total = render(intro, sections, keeps, lineCap).length;
    const omittedChars = sections.map((section) =>
      section.items.length > 0 ? 1 + omittedLine(section.items.length).length : 0,
    );
    const full = sections.map((section) => section.items.length === 0);
    let grew = true;
    while (grew) {
      grew = false;
      for (const i of order) {
        if (full[i]) continue;
        const section = sections[i] as Section;
        const keep = keeps[i] ?? 0;
        const before = keptRange(section.items.length, keep);
        const after = keptRange(section.items.length, keep + 1);
        const added = after.head > before.head ? before.head : after.tailStart;
        const omitted = after.tailStart - after.head;
        const nextOmittedChars = omitted > 0 ? 1 + omittedLine(omitted).length : 0;
        const growth =
          1 + itemLine(section, added, lineCap).length + nextOmittedChars - (omittedChars[i] ?? 0);
        if (total + growth > budgetChars) {
          full[i] = true;
          continue;
        }
        total += growth;
        keeps[i] = keep + 1;
        omittedChars[i] = nextOmittedChars;
        full[i] = keep + 1 === section.items.length;
        grew = true;
      }
    }
    if (sections.every((section, i) => section.items.length === 0 || (keeps[i] ?? 0) > 0)) break;
  }
  return render(intro, sections, keeps, chosenCap);
}

function toolGroupText(group: ToolGroup): string {
  const times = group.count > 1 ? ` (${group.count}×)` : '';
  if (group.path !== undefined) return `\`${group.tool}\` ${group.path}${times}`;
  const samples = group.samples.map((sample) => `\`${sample}\``).join(', ');
  const more = group.moreSamples ? ', …' : '';
  return `\`${group.tool}\`${times}${samples ? `: ${samples}${more}` : ''}`;
}

const UNFINISHED: Record<Exclude<Turn['end'], 'answered'>, string> = {
  unanswered: 'no answer yet',
  aborted: 'aborted',
  failed: 'failed with an error',
  'tool-use': 'stopped while using tools',
};

function nextSteps(facts: OfflineFacts): string[] {
  const last = facts.turns.at(-1);
  if (!last || last.end === 'answered') return [];
  const request = last.request ? `: ${last.request}` : '';
  switch (last.end) {
    case 'unanswered':
      return [`Answer the open request${request}`];
    case 'aborted':
      return [`Resume the aborted turn${request}`];
    case 'failed':
      return [`Retry after the error (${facts.errors.at(-1) ?? 'model error'})${request}`];
    case 'tool-use':
      return [`Finish the turn that stopped while using tools${request}`];
  }
}

// Words too common in instructions to say what to focus on.
const FOCUS_STOP_WORDS = new Set(
  'about also been focus from have include into keep list mention more only please summarise summarize summary that their there these this were what when which with would'.split(
    ' ',
  ),
);

function focusSection(instructions: string, facts: OfflineFacts, doneAndTools: string[]): Section {
  const words = [...new Set(instructions.toLowerCase().split(/[^\p{L}\p{N}_./-]+/u))].filter(
    (word) => word.length >= 4 && !FOCUS_STOP_WORDS.has(word),
  );
  const candidates = [
    ...facts.turns.flatMap((turn) => (turn.request ? [turn.request] : [])),
    ...doneAndTools,
    ...facts.errors,
    ...facts.context,
  ];
  const matches = words.length
    ? [...new Set(candidates.filter((item) => words.some((word) => item.toLowerCase().includes(word))))]
    : [];
  return {
    heading: '## Additional focus',
    lead: `Requested: ${oneLine(instructions)}`,
    priority: 5,
    items: matches,
    bullet: '- ',
    empty: '- (nothing in these entries mentions it)',
  };
}

export function summarizeOffline(
  entries: readonly SessionEntry[],
  options: Pick<SummarizeOptions, 'customInstructions' | 'preamble'> & { budgetChars?: number } = {},
): SummaryResult {
  const budgetChars = options.budgetChars ?? DEFAULT_OFFLINE_BUDGET_CHARS;
  const prepared = prepareBranchEntries(entries, 0);
  const details = computeFileLists(prepared.fileOps);
  const facts = gatherFacts(entries);

  const done = facts.turns
    .filter((turn) => turn.end === 'answered' && (turn.conclusion ?? turn.request))
    .map((turn) => (turn.conclusion ?? turn.request) as string);
  const tools = facts.toolGroups.map(toolGroupText);
  const sections: Section[] = [
    {
      heading: '## Goal',
      priority: 0,
      items: facts.turns.flatMap((turn) => (turn.request ? [turn.request] : [])),
      bullet: '- ',
      empty: '- (no user request in these entries)',
    },
    {
      heading: '## Constraints & Preferences',
      items: facts.constraints,
      bullet: '- ',
      empty: '- (none stated)',
      priority: 3,
    },
    {
      heading: '## Progress\n### Done',
      items: done,
      bullet: '- [x] ',
      empty: '- (nothing concluded)',
      priority: 3,
    },
    { heading: '### Tool calls', items: tools, bullet: '- ', priority: 6 },
    {
      heading: '### In Progress',
      priority: 4,
      items: facts.turns
        .filter((turn) => turn.end !== 'answered')
        .map(
          (turn) =>
            `${turn.request || '(turn without a request)'} (${UNFINISHED[turn.end as keyof typeof UNFINISHED]})`,
        ),
      bullet: '- [ ] ',
    },
    { heading: '### Blocked', items: facts.errors, bullet: '- ', empty: '- (no errors)', priority: 2 },
    { heading: '## Key Decisions', items: facts.decisions, bullet: '- ', priority: 8 },
    {
      heading: '## Next Steps',
      items: nextSteps(facts),
      bullet: 'numbered',
      empty: '- (nothing left open)',
      priority: 1,
    },
    { heading: '## Critical Context', items: facts.context, bullet: '- ', priority: 7 },
  ];
  if (options.customInstructions)
    sections.push(focusSection(options.customInstructions, facts, [...done, ...tools]));

  const intro = `_Offline summary of ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, written without a model._`;
  const body = fitToBudget(intro, sections, budgetChars);
  const summary =
    (options.preamble !== undefined && body.startsWith(BRANCH_SUMMARY_PREAMBLE)
      ? options.preamble + body.slice(BRANCH_SUMMARY_PREAMBLE.length)
      : body) + formatFileListsSuffix(details.readFiles, details.modifiedFiles);
  // The offline summariser reads every entry it is given: nothing is left out for a budget.
  const sent = { entries: entries.length, tokens: prepared.totalTokens, budget: null, leftOut: [] };
  return { summary, details, sent };
}

export function createOfflineSummarizer(options: { budgetChars?: number } = {}): Summarizer {
  const budgetChars = options.budgetChars ?? DEFAULT_OFFLINE_BUDGET_CHARS;
  if (!Number.isInteger(budgetChars) || budgetChars < MIN_OFFLINE_BUDGET_CHARS) {
    throw new RangeError(
      `budgetChars must be an integer of at least ${MIN_OFFLINE_BUDGET_CHARS}, got ${budgetChars}`,
    );
  }
  return {
    id: OFFLINE_SUMMARIZER_ID,
    label: 'Offline (no model)',
    summarize(entries, options) {
      // A promise that settles once: the work is synchronous, so an abort can only come first.
      return new Promise<SummaryResult>((resolve) => {
        throwIfAborted(options.signal);
        options.onProgress?.({ phase: 'preparing', fraction: 0 });
        const result = summarizeOffline(entries, {
          customInstructions: options.customInstructions,
          ...(options.preamble !== undefined ? { preamble: options.preamble } : {}),
          budgetChars,
        });
        throwIfAborted(options.signal);
        options.onProgress?.({ phase: 'finishing', fraction: 1 });
        resolve(result);
      });
    },
  };
}
