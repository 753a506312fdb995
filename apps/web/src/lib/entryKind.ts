// The colour of each entry kind. Which kind an entry is comes from session-core's entry-type table
// (`entryKind`, for colours and badges, not for filtering); every kind must have a colour here.

import type { EntryKind } from '@canopy/session-core';

export { entryKind, kindTitle, type EntryKind } from '@canopy/session-core';

export const KIND_COLOR_VAR = {
  user: 'var(--user)',
  assistant: 'var(--assistant)',
  tool: 'var(--tool)',
  summary: 'var(--summary)',
  settings: 'var(--settings)',
  custom: 'var(--custom)',
  other: 'var(--settings)',
} as const satisfies Record<EntryKind, string>;
