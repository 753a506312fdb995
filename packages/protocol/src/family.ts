// Schema of the family of a session (docs/archive-and-family.md#family-of-a-session):
// GET /api/sessions/:id/family. Kinds and problem codes come from session-core's own lists.
import { Type, type Static } from '@sinclair/typebox';
import {
  FAMILY_KINDS,
  FAMILY_PROBLEM_CODES,
  type FamilyKind as CoreFamilyKind,
  type FamilyProblemCode as CoreFamilyProblemCode,
} from '@canopy/session-core';
import { Nullable } from './common';
import type { Assert, SameType } from './vocabulary';

export const FamilyKind = Type.Union(FAMILY_KINDS.map((kind) => Type.Literal(kind)));
export type FamilyKind = CoreFamilyKind;
export type _FamilyKindAgrees = Assert<SameType<Static<typeof FamilyKind>, FamilyKind>>;

export const FamilyProblemCode = Type.Union(FAMILY_PROBLEM_CODES.map((code) => Type.Literal(code)));
export type FamilyProblemCode = CoreFamilyProblemCode;
export type _FamilyProblemCodeAgrees = Assert<SameType<Static<typeof FamilyProblemCode>, FamilyProblemCode>>;

export const FamilyMemberItem = Type.Object({
  /** The member's opaque session id (as in the session list). */
  id: Type.String(),
  /** Its name: session_info name / oh-my-pi title, else its first message, else its file name. */
  name: Type.String(),
  /** Path relative to its root, for display. */
  path: Type.String(),
  kind: FamilyKind,
  /** An archived `.jsonl.gz` file (read-only). */
  archived: Type.Boolean(),
  parentId: Nullable(Type.String()),
  /**
   * The entry of the parent this file is grafted at: the last entry it shares with it; for a
   * subagent, the assistant entry whose `task` tool call started it; for an advisor, the last entry
   * of the parent written before it started (docs/archive-and-family.md#subagent-lanes).
   */
  graftId: Nullable(Type.String()),
  /** For a subagent: the id of the tool call (a block of the `graftId` entry) that started it. */
  toolCallId: Nullable(Type.String()),
  depth: Type.Integer({ minimum: 0 }),
  entryCount: Type.Integer({ minimum: 0 }),
  /** The file's last change, Unix ms. */
  lastActivity: Type.Number(),
  problems: Type.Array(Type.Object({ code: FamilyProblemCode, message: Type.String() })),
});
export type FamilyMemberItem = Static<typeof FamilyMemberItem>;

export const FamilyResponse = Type.Object({
  /** The family's files, a parent before its children, newest activity first (pi's threaded /resume). */
  members: Type.Array(FamilyMemberItem),
});
export type FamilyResponse = Static<typeof FamilyResponse>;

/** The most entries a lane carries; a longer run is cut at its start and end (`omitted` says how many). */
export const MAX_LANE_ENTRIES = 400;

export const LaneEntryItem = Type.Object({
  id: Type.String(),
  /** What the entry is, for its dot's shape and colour. */
  role: Type.Union([
    Type.Literal('user'),
    Type.Literal('assistant'),
    Type.Literal('tool'),
    Type.Literal('summary'),
    Type.Literal('other'),
  ]),
  /** The row the tree selector would show for it (docs/format.md), one line. */
  text: Type.String(),
  /** A tool result that failed, or an assistant reply that stopped on an error or abort. */
  error: Type.Boolean(),
});
export type LaneEntryItem = Static<typeof LaneEntryItem>;

/**
 * GET /api/sessions/:id/lane: a file's run, from its first entry to its leaf, for drawing it as a
 * lane under the entry it was grafted at (docs/archive-and-family.md#subagent-lanes).
 */
export const LaneResponse = Type.Object({
  sessionId: Type.String(),
  /** The path from the root to the leaf, at most MAX_LANE_ENTRIES: its first and last entries. */
  entries: Type.Array(LaneEntryItem),
  /** Entries of the path left out between the first and the last ones sent (0 when none). */
  omitted: Type.Integer({ minimum: 0 }),
  /** The leaf's id (the run's last entry), or null for a file without entries. */
  leafId: Nullable(Type.String()),
});
export type LaneResponse = Static<typeof LaneResponse>;
