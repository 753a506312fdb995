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
  /** The entry of the parent this file is grafted at: the last entry it shares with it. */
  graftId: Nullable(Type.String()),
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
