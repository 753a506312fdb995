import { Type, type Static } from '@sinclair/typebox';
import { FilterMode } from './vocabulary';
import { Nullable } from './common';

export const DOUBLE_ESCAPE_ACTIONS = ['tree', 'branch', 'none'] as const;
export const DoubleEscapeAction = Type.Union(DOUBLE_ESCAPE_ACTIONS.map((action) => Type.Literal(action)));
export type DoubleEscapeAction = (typeof DOUBLE_ESCAPE_ACTIONS)[number];

export const Settings = Type.Object({
  branchSummary: Type.Object({
    enabled: Type.Boolean(),
    /** The summariser the dialog picks first; the server's default when absent or not offered. */
    summarizerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  }),
  doubleEscapeAction: DoubleEscapeAction,
  defaultFilter: FilterMode,
});
export type Settings = Static<typeof Settings>;

/** PUT /api/settings: any subset; missing keys keep their value. */
export const SettingsPatch = Type.Object(
  {
    branchSummary: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          /** null goes back to the server's default. */
          summarizerId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
        },
        { additionalProperties: false },
      ),
    ),
    doubleEscapeAction: Type.Optional(DoubleEscapeAction),
    defaultFilter: Type.Optional(FilterMode),
  },
  { additionalProperties: false },
);
export type SettingsPatch = Static<typeof SettingsPatch>;

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
