// The family of a session across files (docs/archive-and-family.md#family-of-a-session): the files
// the session list links to it (parent links, both ways), each read at its head only, and
// session-core's family builder for kinds, grafts and problems.
import path from 'node:path';
import type { FamilyMemberItem, FamilyResponse, SessionListItem } from '@canopy/protocol';
import {
  buildFamilyForest,
  familyOf,
  parentSessionIsPath,
  type FamilyFileHead,
  type FamilyMember,
} from '@canopy/session-core';
import { AppError } from '../errors';
import { readFamilyHead, type FamilyHeadRead } from '../files/family-heads';
import { realpathSyncOrUndefined } from '../files/files';
import { isArchive, subagentParentCandidates } from '../files/omp-files';
import type { SessionStore } from '../session-store';
import { CALL_SITE_MAX_BYTES, callSitesIn, type CallSite, type CallSiteChild } from './call-sites';
import { FamilyHeadCache } from './family-head-cache';

/** The most files one family lists; a larger one is cut (the nearest files first). */
export const MAX_FAMILY_FILES = 500;

export class SessionFamily {
  private readonly heads = new FamilyHeadCache();

  constructor(
    private readonly store: SessionStore,
    /** The most bytes of a parent that is not open read for its call sites (tests lower it). */
    private readonly callSiteMaxBytes = CALL_SITE_MAX_BYTES,
    /** Reads a member's head (tests count the reads). */
    private readonly readHead: (file: string) => Promise<FamilyHeadRead> = readFamilyHead,
  ) {}

  async family(id: string): Promise<FamilyResponse> {
    const items = this.store.list();
    const byId = new Map(items.map((item) => [item.id, item]));
    if (!byId.has(id)) throw new AppError('SESSION_NOT_FOUND', `No session with id ${id}.`);
    const related = relatedItems(items, byId, id);
    const heads = (await Promise.all(related.map((item) => this.headOf(item)))).filter(
      (head) => head !== undefined,
    );
    const forest = buildFamilyForest(heads);
    const members = familyOf(forest, id);
    const headOf = new Map(heads.map((head) => [head.key, head]));
    const sites = await this.callSites(members, headOf);
    return {
      members: members.map((member): FamilyMemberItem => {
        const item = byId.get(member.key)!;
        const site = sites.get(member.key);
        return {
          id: member.key,
          name: memberName(item, member, headOf.get(member.key)),
          path: item.path,
          kind: member.kind,
          archived: isArchive(item.path),
          parentId: member.parentKey,
          graftId: site ? site.graftId : member.graftId,
          toolCallId: site?.toolCallId ?? null,
          depth: member.depth,
          entryCount: item.entryCount,
          lastActivity: item.mtime,
          problems: site?.problem ? [...member.problems, site.problem] : member.problems,
        };
      }),
    };
  }

  /**
   * Where each subagent and advisor member was started in its parent (docs/archive-and-family.md#subagent-lanes):
   * each parent is read once for all its transcripts, the parents one after another (a scan is
   * bounded, and several at once would only share the disk).
   */
  private async callSites(
    members: readonly FamilyMember[],
    heads: ReadonlyMap<string, FamilyFileHead>,
  ): Promise<Map<string, CallSite>> {
    const byParent = new Map<string, CallSiteChild[]>();
    for (const member of members) {
      if ((member.kind !== 'subagent' && member.kind !== 'advisor') || member.parentKey === null) continue;
      const head = heads.get(member.key)!;
      const startedAt = head.headerTimestamp ?? head.head[0]?.timestamp;
      const list = byParent.get(member.parentKey) ?? [];
      list.push({ key: member.key, file: head.file, kind: member.kind, ...(startedAt ? { startedAt } : {}) });
      byParent.set(member.parentKey, list);
    }
    const sites = new Map<string, CallSite>();
    for (const [parentKey, children] of byParent) {
      const parent = heads.get(parentKey);
      if (!parent) continue;
      try {
        for (const [key, site] of await callSitesIn(
          this.store,
          parentKey,
          parent.file,
          children,
          this.callSiteMaxBytes,
        )) {
          sites.set(key, site);
        }
      } catch (error) {
        // The parent went away or cannot be read now: its transcripts stay ungrafted, with the reason.
        for (const child of children) {
          sites.set(child.key, {
            graftId: null,
            toolCallId: null,
            problem: {
              code: 'call-site-not-found',
              message: `The parent could not be read: ${(error as Error).message}`,
            },
          });
        }
      }
    }
    return sites;
  }

  private async headOf(item: SessionListItem): Promise<FamilyFileHead | undefined> {
    const indexed = this.store.index.get(item.id);
    if (!indexed || item.invalid) return undefined;
    const file = indexed.file;
    let read;
    try {
      read = await this.heads.get({ file, size: item.size, mtime: item.mtime }, () => this.readHead(file));
    } catch {
      return undefined; // gone or unreadable since it was listed: not in the family
    }
    const parsed = read.reader.parsed;
    const head: FamilyFileHead = {
      key: item.id,
      file,
      archived: isArchive(file),
      head: parsed.head,
      headComplete: read.complete,
      entryCount: item.entryCount,
      lastActivity: item.mtime,
    };
    if (parsed.sessionId !== undefined) head.sessionId = parsed.sessionId;
    if (parsed.ownFirstMessage !== undefined) head.ownFirstMessage = parsed.ownFirstMessage;
    if (parsed.headerTimestamp !== undefined) head.headerTimestamp = parsed.headerTimestamp;
    if (item.kind) head.folder = { kind: item.kind, parents: subagentParentCandidates(file).parents };
    const parentSession = parsed.parentSession;
    if (parentSession !== undefined) {
      if (parentSessionIsPath(parentSession)) {
        const candidate = path.resolve(path.dirname(file), parentSession);
        // The index is keyed by real paths; the header's path may go through a link.
        head.parentPath = this.store.index.getByFile(candidate)
          ? candidate
          : (realpathSyncOrUndefined(candidate) ?? candidate);
      } else head.parentSessionId = parentSession;
    }
    return head;
  }
}

/**
 * A member's name: the name it was given (pi's session_info, oh-my-pi's title); else, for a file
 * grafted on a parent, its own first message, since a fork's first message is its parent's, copied
 * (every fork of a session would carry the same name); else its first message, else its file name.
 */
function memberName(item: SessionListItem, member: FamilyMember, head: FamilyFileHead | undefined): string {
  const own = member.parentKey !== null ? head?.ownFirstMessage?.trim() : undefined;
  return item.name?.trim() || own || item.firstMessage.trim() || path.basename(item.path);
}

/** The listed sessions linked to `id` by parent links, either way, nearest first. */
function relatedItems(
  items: readonly SessionListItem[],
  byId: ReadonlyMap<string, SessionListItem>,
  id: string,
): SessionListItem[] {
  const children = new Map<string, SessionListItem[]>();
  for (const item of items) {
    if (item.parentId === null || item.parentId === item.id) continue;
    const list = children.get(item.parentId) ?? [];
    list.push(item);
    children.set(item.parentId, list);
  }
  const seen = new Set<string>([id]);
  const queue = [byId.get(id)!];
  for (let i = 0; i < queue.length && queue.length < MAX_FAMILY_FILES; i++) {
    const item = queue[i]!;
    const neighbours = [
      ...(item.parentId ? [byId.get(item.parentId)] : []),
      ...(children.get(item.id) ?? []),
    ];
    for (const next of neighbours) {
      if (!next || seen.has(next.id)) continue;
      seen.add(next.id);
      queue.push(next);
    }
  }
  return queue.slice(0, MAX_FAMILY_FILES);
}
