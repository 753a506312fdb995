// A coarse kind per skeleton node, for colours and badges (not for filtering, which session-core does).

export type EntryKind = 'user' | 'assistant' | 'tool' | 'summary' | 'settings' | 'custom' | 'other';

export function entryKind(type: string, role: string | undefined): EntryKind {
  if (type === 'message') {
    if (role === 'user') return 'user';
    if (role === 'assistant') return 'assistant';
    if (role === 'toolResult' || role === 'bashExecution' || role === 'pythonExecution') return 'tool';
    if (role === 'developer') return 'custom';
    if (role === 'custom' || role === 'hookMessage' || role === 'fileMention') return 'custom';
    return 'other';
  }
  if (type === 'branch_summary' || type === 'compaction') return 'summary';
  if (type === 'custom_message') return 'custom';
  if (
    type === 'label' ||
    type === 'custom' ||
    type === 'model_change' ||
    type === 'thinking_level_change' ||
    type === 'session_info' ||
    type === 'ttsr_injection' ||
    type === 'mode_change' ||
    type === 'title_change' ||
    type === 'model_usage' ||
    type === 'service_tier_change' ||
    type === 'reset_boundary' ||
    type === 'credential_pin' ||
    type === 'session_init'
  )
    return 'settings';
  return 'other';
}

export const KIND_COLOR_VAR: Record<EntryKind, string> = {
  user: 'var(--user)',
  assistant: 'var(--assistant)',
  tool: 'var(--tool)',
  summary: 'var(--summary)',
  settings: 'var(--settings)',
  custom: 'var(--custom)',
  other: 'var(--settings)',
};

export function kindTitle(type: string, role: string | undefined): string {
  if (type === 'message') return role ?? 'message';
  return type.replace(/_/g, ' ');
}
