// pi 1.6.0 (`@earendil-works/pi-coding-agent`, a root dev dependency) as the reference for today's pi
// files. Its package index loads modules that need Node 22 (it declares Node >= 22.19), but its session,
// message and compaction modules load under Node 20, so they are imported by file path, here only.
export {
  buildSessionContext,
  migrateSessionEntries,
  parseSessionEntries,
  SessionManager,
} from '../../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js';
export { convertToLlm } from '../../../node_modules/@earendil-works/pi-coding-agent/dist/core/messages.js';
export {
  collectEntriesForBranchSummary,
  estimateTokens,
  prepareBranchEntries,
} from '../../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/index.js';
export { TreeSelectorComponent } from '../../../node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/components/tree-selector.js';
export { initTheme } from '../../../node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme/theme.js';
// pi's interactive mode installs its key bindings (the tree's Ctrl+←/→, Shift+T, Ctrl+X…) into
// pi-tui at start; tests that drive the selector with keys do the same.
import { KeybindingsManager } from '../../../node_modules/@earendil-works/pi-coding-agent/dist/core/keybindings.js';
import { setKeybindings } from '../../../node_modules/.pnpm/@earendil-works+pi-tui@1.6.0/node_modules/@earendil-works/pi-tui/dist/index.js';

/** pi's default key bindings (no user file), installed as its interactive mode installs them. */
export function installPiKeybindings(): void {
  // The two declaration paths of pi-tui's class differ for the compiler; at run time they are one.
  setKeybindings(new KeybindingsManager({}) as unknown as Parameters<typeof setKeybindings>[0]);
}
