import { Type, type Static } from '@sinclair/typebox';
import { FilterMode } from './vocabulary';

export const DOUBLE_ESCAPE_ACTIONS = ['tree', 'branch', 'none'] as const;
export const DoubleEscapeAction = Type.Union(DOUBLE_ESCAPE_ACTIONS.map((action) => Type.Literal(action)));
export type DoubleEscapeAction = (typeof DOUBLE_ESCAPE_ACTIONS)[number];

export const Settings = Type.Object({
  branchSummary: Type.Object({ enabled: Type.Boolean() }),
  doubleEscapeAction: DoubleEscapeAction,
  defaultFilter: FilterMode,
});
export type Settings = Static<typeof Settings>;

/** PUT /api/settings: any subset; missing keys keep their value. */
export const SettingsPatch = Type.Object(
  {
    branchSummary: Type.Optional(
      Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
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
