// Where each subagent and advisor of a family was started in its parent
// (docs/archive-and-family.md#subagent-lanes). A parent open in the server is asked through its
// live model (its tree model holds the task calls and results, fed once as the file was read);
// any other parent is scanned through the files layer, only its lines holding `"task"` and a stem
// parsed (session-core's subagentLineFilter), at most CALL_SITE_MAX_BYTES of it. Never fatal: a
// site not found is a problem on the member.
import path from 'node:path';
import {
  LastEntryBefore,
  SubagentCallLedger,
  SUBAGENT_LINE_NEEDLE,
  subagentLineFilter,
  type FamilyProblem,
  type WantedSubagent,
} from '@canopy/session-core';
import { CALL_SITE_PIECE_BYTES, scanLinesBounded, scanLinesHolding } from '../files/family-heads';
import { sessionFolderOf } from '../files/omp-files';
import type { SessionStore } from '../session-store';

/** The most bytes of one parent read to find its subagents' call sites (a 1 GB parent is cut). */
export const CALL_SITE_MAX_BYTES = 64 << 20;

/** A transcript in a parent's folder whose call site is looked for. */
export interface CallSiteChild {
  key: string;
  /** Its file (for its stem: `AuthScan` of `.../AuthScan.jsonl`). */
  file: string;
  kind: 'subagent' | 'advisor';
  /** Its header's (or first entry's) time, ISO. */
  startedAt?: string;
}

export interface CallSite {
  graftId: string | null;
  toolCallId: string | null;
  problem?: FamilyProblem;
}

/** The stem oh-my-pi named a transcript with: its file name without `.jsonl` (`Anna.Bob`). */
export function transcriptStem(file: string): string {
  return path.basename(sessionFolderOf(file));
}

/** The call sites of `children` (keyed by member key) in the parent `parentKey` (file `parentFile`). */
export async function callSitesIn(
  store: SessionStore,
  parentKey: string,
  parentFile: string,
  children: readonly CallSiteChild[],
  maxBytes = CALL_SITE_MAX_BYTES,
): Promise<Map<string, CallSite>> {
  const subagents = children.filter((child) => child.kind === 'subagent');
  const wanted: WantedSubagent[] = subagents.map((child) => ({
    stem: transcriptStem(child.file),
    ...(child.startedAt !== undefined ? { startedAt: child.startedAt } : {}),
  }));
  const advisors = children.flatMap((child) =>
    child.kind === 'advisor' && child.startedAt !== undefined
      ? [{ child, finder: new LastEntryBefore(child.startedAt) }]
      : [],
  );
  let ledger: SubagentCallLedger;
  let complete: boolean;
  if (store.isOpen(parentKey)) {
    const session = await store.open(parentKey);
    await session.refresh();
    ledger = session.tree.subagentCalls;
    for (const node of session.tree.all) {
      for (const { finder } of advisors) finder.add(node.id, node.timestamp);
    }
    complete = true;
  } else {
    ledger = new SubagentCallLedger();
    complete = true;
    if (advisors.length > 0) {
      // Every line up to the advisors' starts (usually near the top): parsed until each has passed.
      ({ complete } = await scanLinesBounded(
        parentFile,
        {
          maxBytes,
          pieceBytes: CALL_SITE_PIECE_BYTES,
          enough: () => advisors.every(({ finder }) => finder.passed),
        },
        (line) => {
          for (const { finder } of advisors) finder.addLine(line);
        },
      ));
    }
    if (wanted.length > 0) {
      // Only the lines holding `"task"` are decoded, and of those only calls and the stems' results parsed.
      const keep = subagentLineFilter(wanted.map((want) => want.stem));
      ({ complete } = await scanLinesHolding(
        parentFile,
        SUBAGENT_LINE_NEEDLE,
        { maxBytes, pieceBytes: CALL_SITE_PIECE_BYTES },
        (line) => {
          if (keep(line)) ledger.addLine(line);
        },
      ));
    }
  }
  const found = ledger.find(wanted, complete);
  const sites = new Map<string, CallSite>();
  const notFound = (what: string): FamilyProblem => ({
    code: 'call-site-not-found',
    message: complete
      ? `No ${what} was found in the parent.`
      : `The parent is larger than the ${maxBytes >> 20} MB read to find where it started; no ${what} was found in that part.`,
  });
  subagents.forEach((child, i) => {
    const site = found.get(wanted[i]!.stem);
    sites.set(
      child.key,
      site
        ? { graftId: site.entryId, toolCallId: site.toolCallId }
        : { graftId: null, toolCallId: null, problem: notFound(`task call that started ${wanted[i]!.stem}`) },
    );
  });
  for (const { child, finder } of advisors) {
    const settled = complete || finder.passed;
    sites.set(
      child.key,
      finder.entryId !== null && settled
        ? { graftId: finder.entryId, toolCallId: null }
        : { graftId: null, toolCallId: null, problem: notFound('entry written before the advisor started') },
    );
  }
  return sites;
}
