// The prompt of pi's branch summariser (pi-coding-agent 0.73.1, compaction/branch-summarization.ts
// and compaction/utils.ts), word for word: the LLM summariser must send what pi sends.

export const SUMMARIZATION_SYSTEM_PROMPT = `You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.`;

export const BRANCH_SUMMARY_PROMPT = `Create a structured summary of this conversation branch for context when returning later.

Use this EXACT format:

## Goal
[What was the user trying to accomplish in this branch?]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next to continue this work]

Keep each section concise. Preserve exact file paths, function names, and error messages.`;

/** Custom instructions replace the template in replace mode, else follow it as "Additional focus". */
export function summaryInstructions(customInstructions?: string, replaceInstructions?: boolean): string {
  if (replaceInstructions && customInstructions) return customInstructions;
  if (customInstructions) return `${BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: ${customInstructions}`;
  return BRANCH_SUMMARY_PROMPT;
}

export function summaryPromptText(conversationText: string, instructions: string): string {
  return `<conversation>\n${conversationText}\n</conversation>\n\n${instructions}`;
}
