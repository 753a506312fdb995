import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common';

// Summary providers set up in the page (the settings dialog): saved by the server in its state
// folder, owner-only; a key goes in and never comes back out (only masked). Beside them, the models
// found in pi's and oh-my-pi's own configuration, and every configuration problem with its fix.

const PositiveInteger = Type.Integer({ minimum: 1, maximum: 100_000_000 });

/** A provider as the settings dialog sends it. */
export const ProviderInput = Type.Object(
  {
    /** Set when editing a saved provider; a new one gets its id from provider and model. */
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** A pi-ai provider id (`openai`, `anthropic`, …), or any name for an OpenAI-compatible endpoint. */
    provider: Type.String({ minLength: 1, maxLength: 100 }),
    /** A model of the provider's catalogue, or the endpoint's model name. */
    model: Type.String({ minLength: 1, maxLength: 200 }),
    /** An OpenAI-compatible chat-completions endpoint, e.g. `http://127.0.0.1:11434/v1`. */
    baseUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    contextWindow: Type.Optional(PositiveInteger),
    /** The model's output limit. */
    maxTokens: Type.Optional(PositiveInteger),
    reserveTokens: Type.Optional(PositiveInteger),
    /** The key itself (kept owner-only by the server; never sent back). Absent when editing: keep the saved one. */
    apiKey: Type.Optional(Type.String({ maxLength: 4000 })),
    /** Or the name of the environment variable that holds it. */
    apiKeyEnv: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    ),
    /** Whether the model thinks (the session's thinking level is then sent). */
    reasoning: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ProviderInput = Static<typeof ProviderInput>;

/** A configuration problem, where it applies, and what fixes it. */
export const ProviderProblem = Type.Object({
  message: Type.String(),
  fix: Type.String(),
});
export type ProviderProblem = Static<typeof ProviderProblem>;

/** How a saved provider's requests authenticate, without the secret. */
export const ProviderKey = Type.Object({
  kind: Type.Union([
    Type.Literal('stored'),
    Type.Literal('env'),
    Type.Literal('provider-env'),
    Type.Literal('none'),
  ]),
  /** `stored`: the key masked (`sk-…f00d`). */
  masked: Type.Optional(Type.String()),
  /** `env` / `provider-env`: the variable. */
  variable: Type.Optional(Type.String()),
  /** Whether a key is there now (a variable may be unset). */
  present: Type.Boolean(),
});

export const ProviderView = Type.Object({
  id: Type.String(),
  /** The summariser id it is offered under (`llm:<provider>/<model>`). */
  summarizerId: Type.String(),
  provider: Type.String(),
  model: Type.String(),
  /** The base URL as shown: without credentials, query or fragment. */
  baseUrl: Type.Optional(Type.String()),
  contextWindow: Type.Optional(Type.Integer()),
  maxTokens: Type.Optional(Type.Integer()),
  reserveTokens: Type.Optional(Type.Integer()),
  reasoning: Type.Optional(Type.Boolean()),
  key: ProviderKey,
  /** Offered in the summary dialog now. */
  usable: Type.Boolean(),
  problem: Type.Optional(ProviderProblem),
});
export type ProviderView = Static<typeof ProviderView>;

/** A model of pi's or oh-my-pi's own configuration. */
export const DiscoveredView = Type.Object({
  source: Type.Union([Type.Literal('pi'), Type.Literal('omp')]),
  summarizerId: Type.String(),
  provider: Type.String(),
  model: Type.String(),
  /** The file (under ~) and keys the model was read from. */
  from: Type.String(),
  /** How it authenticates, without the secret (`pi login in ~/.pi/agent/auth.json, valid until …`). */
  credential: Type.String(),
  usable: Type.Boolean(),
  problem: Type.Optional(ProviderProblem),
});
export type DiscoveredView = Static<typeof DiscoveredView>;

export const ProvidersResponse = Type.Object({
  saved: Type.Array(ProviderView),
  discovered: Type.Array(DiscoveredView),
  /** Problems of canopy.config.json and the CANOPY_SUMMARY_* variables (read at start-up). */
  configProblems: Type.Array(ProviderProblem),
  /** pi-ai's providers, for the provider field. */
  catalogProviders: Type.Array(Type.String()),
  defaultSummarizerId: Nullable(Type.String()),
});
export type ProvidersResponse = Static<typeof ProvidersResponse>;

export const CatalogParams = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 100 }) });
export type CatalogParams = Static<typeof CatalogParams>;

export const CatalogModel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  contextWindow: Type.Integer(),
  maxTokens: Type.Integer(),
  reasoning: Type.Boolean(),
});
export const CatalogResponse = Type.Object({ models: Type.Array(CatalogModel) });
export type CatalogResponse = Static<typeof CatalogResponse>;

export const ProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 200 }) });
export type ProviderParams = Static<typeof ProviderParams>;

/** POST /api/providers/test: a provider as typed (not saved yet), or a saved one by id. */
export const ProviderTestRequest = Type.Union([
  ProviderInput,
  Type.Object({ savedId: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
]);
export type ProviderTestRequest = Static<typeof ProviderTestRequest>;

export const ProviderTestResult = Type.Object({
  ok: Type.Boolean(),
  /** The model's answer to the test prompt. */
  answer: Type.Optional(Type.String()),
  /** The model that answered (`provider/model`). */
  model: Type.String(),
  /** Why it failed: the provider's message or the network cause, without any secret. */
  message: Type.Optional(Type.String()),
  elapsedMs: Type.Integer(),
});
export type ProviderTestResult = Static<typeof ProviderTestResult>;
