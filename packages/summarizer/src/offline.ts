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
/** Line lengths tried in turn, longest first, until enough items of every list fit. */
const LINE_CAPS = [400, 200, 100];
const ITEMS_WANTED = 3;

interface Section {
  heading: string;
  items: string[];
  /** Item prefix; numbered lists use "1. ", "2. ", … */
  bullet: string | 'numbered';
  /** Shown when there are no items; a section without items and without this is left out. */
  empty?: string;
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Keeps the first and the last items (the start and the end of the story) and counts the rest. */
function renderItems(section: Section, cap: number, lineCap: number): string[] {
  const prefixOf = (i: number): string => (section.bullet === 'numbered' ? `${i + 1}. ` : section.bullet);
  if (section.items.length === 0) return section.empty ? [section.empty] : [];
  const keep = Math.min(cap, section.items.length);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = section.items.length - keep;
  const lines = section.items.slice(0, head).map((item, i) => prefixOf(i) + clip(item, lineCap));
  if (omitted > 0) lines.push(`- … ${omitted} more omitted`);
  const tailStart = section.items.length - tail;
  section.items
    .slice(tailStart)
    .forEach((item, i) => lines.push(prefixOf(tailStart + i) + clip(item, lineCap)));
  return lines;
}

function render(intro: string, sections: readonly Section[], cap: number, lineCap: number): string {
  const blocks = [intro];
  for (const section of sections) {
    const lines = renderItems(section, cap, lineCap);
    if (lines.length === 0) continue;
    blocks.push([section.heading, ...lines].join('\n'));
  }
  return BRANCH_SUMMARY_PREAMBLE + blocks.join('\n\n');
}

/** The most items per list, and the longest lines, that keep the text within the budget. */
function fitToBudget(intro: string, sections: readonly Section[], budgetChars: number): string {
  const longest = Math.max(0, ...sections.map((section) => section.items.length));
  let text = '';
  for (const lineCap of LINE_CAPS) {
    let low = 0;
    let high = longest;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (render(intro, sections, mid, lineCap).length <= budgetChars) low = mid;
      else high = mid - 1;
    }
    text = render(intro, sections, low, lineCap);
    if (low >= Math.min(ITEMS_WANTED, longest) && text.length <= budgetChars) return text;
  }
  return text;
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
    heading: `## Additional focus\nRequested: ${clip(oneLine(instructions), 400)}`,
    items: matches,
    bullet: '- ',
    empty: '- (nothing in these entries mentions it)',
  };
}

export function summarizeOffline(
  entries: readonly SessionEntry[],
  options: Pick<SummarizeOptions, 'customInstructions'> & { budgetChars?: number } = {},
): SummaryResult {
  const budgetChars = options.budgetChars ?? DEFAULT_OFFLINE_BUDGET_CHARS;
  const details = computeFileLists(prepareBranchEntries(entries, 0).fileOps);
  const facts = gatherFacts(entries);

  const done = facts.turns
    .filter((turn) => turn.end === 'answered' && (turn.conclusion ?? turn.request))
    .map((turn) => (turn.conclusion ?? turn.request) as string);
  const tools = facts.toolGroups.map(toolGroupText);
  const sections: Section[] = [
    {
      heading: '## Goal',
      items: facts.turns.flatMap((turn) => (turn.request ? [turn.request] : [])),
      bullet: '- ',
      empty: '- (no user request in these entries)',
    },
    { heading: '## Progress\n### Done', items: done, bullet: '- [x] ', empty: '- (nothing concluded)' },
    { heading: '### Tool calls', items: tools, bullet: '- ' },
    {
      heading: '### In Progress',
      items: facts.turns
        .filter((turn) => turn.end !== 'answered')
        .map(
          (turn) =>
            `${turn.request || '(turn without a request)'} (${UNFINISHED[turn.end as keyof typeof UNFINISHED]})`,
        ),
      bullet: '- [ ] ',
    },
    { heading: '### Blocked', items: facts.errors, bullet: '- ', empty: '- (no errors)' },
    { heading: '## Key Decisions', items: facts.decisions, bullet: '- ' },
    { heading: '## Next Steps', items: nextSteps(facts), bullet: 'numbered', empty: '- (nothing left open)' },
    { heading: '## Critical Context', items: facts.context, bullet: '- ' },
  ];
  if (options.customInstructions)
    sections.push(focusSection(options.customInstructions, facts, [...done, ...tools]));

  const intro = `_Offline summary of ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, written without a model._`;
  const summary =
    fitToBudget(intro, sections, budgetChars) +
    formatFileListsSuffix(details.readFiles, details.modifiedFiles);
  return { summary, details };
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
          budgetChars,
        });
        throwIfAborted(options.signal);
        options.onProgress?.({ phase: 'finishing', fraction: 1 });
        resolve(result);
      });
    },
  };
}
