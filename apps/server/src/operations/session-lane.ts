// A file's run drawn as a lane under the entry it was grafted at (docs/archive-and-family.md#subagent-lanes):
// GET /api/sessions/:id/lane. The path from the file's root to its leaf, each entry as the tree
// selector's row shows it (session-core's view entries: one home for row text). A session open in
// the server answers from its live model; any other file is read once, whole but bounded
// (LANE_MAX_BYTES: a subagent transcript is small), and nothing of it is kept: reading a lane never
// opens, tails or watches the file, so which sessions are open stays as it was.
import { MAX_LANE_ENTRIES, type LaneEntryItem, type LaneResponse } from '@canopy/protocol';
import { SessionManager, toViewEntries, ViewFlags, type ViewEntry } from '@canopy/session-core';
import { AppError } from '../errors';
import { TooLargeForRead, wholeFileBounded } from '../files/family-heads';
import type { SessionStore } from '../session-store';

/** The most bytes of a file that is not open read for its lane. */
export const LANE_MAX_BYTES = 32 << 20;

const ERROR_FLAGS = ViewFlags.Error | ViewFlags.Aborted | ViewFlags.ToolError;

/** What a lane's dot shows of an entry. */
export function laneRole(view: Pick<ViewEntry, 'type' | 'role'>): LaneEntryItem['role'] {
  if (view.type === 'branch_summary' || view.type === 'compaction') return 'summary';
  if (view.type !== 'message') return 'other';
  switch (view.role) {
    case 'user':
      return 'user';
    case 'assistant':
      return 'assistant';
    case 'toolResult':
    case 'bashExecution':
    case 'pythonExecution':
      return 'tool';
    default:
      return 'other';
  }
}

function laneEntry(view: ViewEntry): LaneEntryItem {
  return { id: view.id, role: laneRole(view), text: view.text, error: (view.flags & ERROR_FLAGS) !== 0 };
}

/** The path cut to its first and last MAX_LANE_ENTRIES / 2 entries (`omitted` between them). */
export function cutLane<T>(path: readonly T[], max = MAX_LANE_ENTRIES): { kept: T[]; omitted: number } {
  if (path.length <= max) return { kept: [...path], omitted: 0 };
  const head = Math.ceil(max / 2);
  const tail = max - head;
  return { kept: [...path.slice(0, head), ...path.slice(path.length - tail)], omitted: path.length - max };
}

export class SessionLanes {
  constructor(
    private readonly store: SessionStore,
    private readonly home: string,
    private readonly maxBytes = LANE_MAX_BYTES,
  ) {}

  async lane(id: string): Promise<LaneResponse> {
    if (this.store.isOpen(id)) return this.openLane(id);
    const indexed = await this.store.resolve(id);
    // An archive the listing could not read says why.
    if (indexed.problem) throw indexed.problem;
    let sm: SessionManager;
    try {
      sm = await SessionManager.fromJsonlChunks(wholeFileBounded(indexed.file, this.maxBytes));
    } catch (error) {
      if (!(error instanceof TooLargeForRead)) throw error;
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The session is larger than the ${this.maxBytes >> 20} MB Canopy reads for a lane; open it instead.`,
      );
    }
    const leafId = sm.getLeafId();
    const { kept, omitted } = cutLane(sm.getBranch());
    // A tool result's row names its call, which is above it on the same path.
    const views = toViewEntries(kept, (entryId) => sm.getLabel(entryId), { home: this.home });
    return { sessionId: id, entries: views.map(laneEntry), omitted, leafId };
  }

  /** From the live model: the path's shapes and the nodes the page's tree is made of. */
  private async openLane(id: string): Promise<LaneResponse> {
    const session = await this.store.open(id);
    await session.refresh();
    const sm = session.sm;
    const nodes = session.tree.all;
    const { kept, omitted } = cutLane(sm.getBranchShapes());
    const entries: LaneEntryItem[] = [];
    for (const shape of kept) {
      const position = sm.getPosition(shape.id);
      const node = position === undefined ? undefined : nodes[position];
      if (node?.id === shape.id) entries.push(laneEntry(node));
    }
    return { sessionId: id, entries, omitted, leafId: sm.getLeafId() };
  }
}
