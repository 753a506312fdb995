// Everything of the protocol that is a plain value rather than a schema: the version, the limits,
// the settings' defaults, the routes' paths and the node codec. The web app imports the protocol's
// values only from here (`@canopy/protocol/values`, an ESLint rule holds it to that), so its bundle
// carries no TypeBox (185 KB of source) and builds no schema in the one task that evaluates it:
// taking them out brought that task from a median of about 190 to 134 ms in cold opens. The
// schemas (index.ts) stay the one source of truth for every body and message; the server and the
// tests check against them.

import type { Settings, SettingsPatch } from './settings';

export { ROUTE_PATHS, apiPath, WS_PATH, WS_PROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from './paths';
export { encodeNodes, decodeNodes, USAGE_FIELDS } from './tree-codec';

/** Bumped on every incompatible change of a REST body or WebSocket message. */
export const PROTOCOL_VERSION = 1;

/** Above this many entries a summary covers only the newest ones; the preview says so. */
export const MAX_SUMMARY_ENTRIES = 10_000;
/** Most ids one selection may name (a cap on the request, far above what a summary covers). */
export const MAX_SELECTION_IDS = 100_000;

export const DOUBLE_ESCAPE_ACTIONS = ['tree', 'branch', 'none'] as const;

export const DEFAULT_SETTINGS: Settings = {
  branchSummary: { enabled: false },
  doubleEscapeAction: 'tree',
  defaultFilter: 'default',
};

/** The settings after a PUT /api/settings patch: missing keys keep their value, a null summariser clears it. */
export function applySettingsPatch(base: Settings, patch: SettingsPatch): Settings {
  const branchSummary: Settings['branchSummary'] = {
    enabled: patch.branchSummary?.enabled ?? base.branchSummary.enabled,
  };
  const summarizerId =
    patch.branchSummary?.summarizerId === undefined
      ? base.branchSummary.summarizerId
      : patch.branchSummary.summarizerId;
  if (typeof summarizerId === 'string') branchSummary.summarizerId = summarizerId;
  return {
    branchSummary,
    doubleEscapeAction: patch.doubleEscapeAction ?? base.doubleEscapeAction,
    defaultFilter: patch.defaultFilter ?? base.defaultFilter,
  };
}
