import { Type, type Static } from '@sinclair/typebox';
import { FilterMode } from './vocabulary';
import { Nullable } from './common';
import { DOUBLE_ESCAPE_ACTIONS } from './values';

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
