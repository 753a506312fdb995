// Canopy's settings, saved by the server in its state folder (settings.json): whether the summary
// choice is offered after a jump, the summariser it starts with, what Esc twice in the composer
// does, and the filter a session opens with.

import type { DoubleEscapeAction, SettingsPatch, SummarizerInfo } from '@canopy/protocol';
import { DOUBLE_ESCAPE_ACTIONS } from '@canopy/protocol/values';
import { FILTER_MODES, type FilterMode } from '@canopy/session-core';
import { useApp, useAppStore } from '../store/context';
import { ProvidersPanel } from './ProvidersPanel';
import { focusDialog, useEscape } from './useEscape';

/** A stable empty list: a new [] per read would re-render forever. */
const NO_SUMMARIZERS: readonly SummarizerInfo[] = [];

const DOUBLE_ESCAPE_TEXT: Record<DoubleEscapeAction, string> = {
  tree: 'focus the tree',
  branch: 'open Branch from message',
  none: 'nothing',
};

const FILTER_TEXT: Record<FilterMode, string> = {
  default: 'default',
  'no-tools': 'no tools',
  'user-only': 'user messages only',
  'labeled-only': 'labelled only',
  all: 'all entries',
};

export function SettingsDialog() {
  const store = useAppStore();
  const open = useApp((s) => s.settingsOpen);
  const settings = useApp((s) => s.settings);
  const offered = useApp((s) => s.info?.summarizers ?? NO_SUMMARIZERS);
  const serverDefault = useApp((s) => s.info?.defaultSummarizerId ?? null);
  useEscape(open, () => store.getState().openSettings(false));
  if (!open) return null;
  const update = (patch: SettingsPatch) => void store.getState().updateSettings(patch);
  const chosen = settings.branchSummary.summarizerId;
  return (
    <div className="dialog-backdrop" onClick={() => store.getState().openSettings(false)}>
      <div
        className="dialog settings-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Settings"
        data-testid="dialog.settings"
        tabIndex={-1}
        ref={focusDialog}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => e.stopPropagation()}
      >
        <h2>Settings</h2>
        <div className="settings-body">
          <label className="settings-row">
            <input
              type="checkbox"
              data-testid="settings.summaries"
              checked={settings.branchSummary.enabled}
              onChange={(e) => update({ branchSummary: { enabled: e.target.checked } })}
            />
            <span>
              <strong>Offer a branch summary when jumping</strong>
              <span className="help">
                After Enter, a double-click or Jump here: No summary / Summarize / Summarize with custom
                prompt.
              </span>
            </span>
          </label>
          <label className="settings-row">
            <span>
              <strong>Summariser</strong>
              <span className="help">Used first in the summary dialog; it can be changed there.</span>
            </span>
            <select
              data-testid="settings.summarizer"
              value={chosen && offered.some((s) => s.id === chosen) ? chosen : ''}
              onChange={(e) =>
                update({ branchSummary: { summarizerId: e.target.value === '' ? null : e.target.value } })
              }
            >
              <option value="">
                Server default
                {serverDefault
                  ? ` (${offered.find((s) => s.id === serverDefault)?.label ?? serverDefault})`
                  : ''}
              </option>
              {offered.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          <p className="help summarizer-source" data-testid="settings.summarizer-source">
            {(() => {
              const id = chosen && offered.some((s) => s.id === chosen) ? chosen : serverDefault;
              const current = offered.find((s) => s.id === id);
              return current
                ? `Uses ${current.label}${current.source ? `, from ${current.source}` : ''}.`
                : '';
            })()}
          </p>
          <ProvidersPanel />
          <label className="settings-row">
            <span>
              <strong>Esc twice in the composer</strong>
            </span>
            <select
              data-testid="settings.double-escape"
              value={settings.doubleEscapeAction}
              onChange={(e) => update({ doubleEscapeAction: e.target.value as DoubleEscapeAction })}
            >
              {DOUBLE_ESCAPE_ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {DOUBLE_ESCAPE_TEXT[action]}
                </option>
              ))}
            </select>
          </label>
          <label className="settings-row">
            <span>
              <strong>Filter a session opens with</strong>
            </span>
            <select
              data-testid="settings.default-filter"
              value={settings.defaultFilter}
              onChange={(e) => update({ defaultFilter: e.target.value as FilterMode })}
            >
              {FILTER_MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {FILTER_TEXT[mode]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="dialog-foot">
          <span className="help">Saved by the server in its state folder.</span>
          <button
            type="button"
            data-testid="settings.close"
            onClick={() => store.getState().openSettings(false)}
          >
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
