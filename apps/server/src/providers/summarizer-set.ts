// Which summarisers the server offers, kept current without a restart: the offline one, the LLM ones
// of canopy.config.json and the CANOPY_SUMMARY_* variables (read at start-up), the providers set up
// in the page (providers.json), and the models of pi's and oh-my-pi's own configuration (read again
// on every refresh). It also knows every configured secret, so none is ever shown or logged.
import path from 'node:path';
import type {
  ProviderInput,
  ProvidersResponse,
  ProviderTestRequest,
  ProviderTestResult,
  ProviderView,
} from '@canopy/protocol';
import {
  createLlmSummarizer,
  describeFailure,
  displayUrl,
  llmSummarizerId,
  llmTargetOf,
  loadPiAi,
  OFFLINE_SUMMARIZER_ID,
  scrubSecrets,
  urlSecrets,
  type LlmSummarizerConfig,
  type LlmTarget,
  type Summarizer,
} from '@canopy/summarizer';
import { AppError } from '../errors';
import { entryExists } from '../files/files';
import type { SummarizerRegistry } from '../summarizer';
import type { DiscoveredModel } from './discovered';
import { discoverOmpModel, ompAgentDir } from './omp-setup';
import { discoverPiModel, piAgentDir } from './pi-setup';
import { maskKey, ProviderStore, type SavedProvider } from './provider-store';

export interface ConfiguredSummarizers {
  summarizers: Summarizer[];
  /** `summarizer.default` of the config file when it named one; else offline. */
  defaultId: string;
  problems: string[];
  /** The keys written in the config file or the variables (scrubbed wherever they could appear). */
  secrets: string[];
}

export interface SummarizerSetOptions {
  registry: SummarizerRegistry;
  configured: ConfiguredSummarizers;
  stateDir: string;
  /** The environment keys are read from (the process's; tests give their own). */
  env: NodeJS.ProcessEnv;
  /** Where pi's and oh-my-pi's configuration is looked for; absent: no zero-setup models (tests, embeddings). */
  agentHome?: string;
  /** How long a Test request may take before it is given up (default 60 s). */
  testTimeoutMs?: number;
  warn: (message: string) => void;
}

const TEST_PROMPT = 'Reply with the single word: ready';

export class SummarizerSet {
  readonly store: ProviderStore;
  private discovered: DiscoveredModel[] = [];
  private views: ProviderView[] = [];
  private storeProblem: string | undefined;
  /** Secrets a request resolved (a login's token, a key from a command): scrubbed from then on. */
  private readonly resolved = new Set<string>();
  private catalogProviders: string[] = [];
  /** pi-ai, once something needs it (see refresh). */
  private pi: Awaited<ReturnType<typeof loadPiAi>> | undefined;

  constructor(private readonly options: SummarizerSetOptions) {
    this.store = new ProviderStore(options.stateDir);
  }

  /** Reads providers.json and pi's / oh-my-pi's configuration again and offers what is usable. */
  async refresh(loadClient = false): Promise<void> {
    const { options } = this;
    this.storeProblem = undefined;
    try {
      await this.store.load();
    } catch (error) {
      this.storeProblem = (error as Error).message;
    }
    // pi-ai (every provider's SDK, ~0.5 s of CPU) is imported only when something needs it: an LLM
    // configured or saved, an agent configuration to read, or the settings dialog asking.
    if (
      !this.pi &&
      (loadClient ||
        this.store.list().length > 0 ||
        options.configured.summarizers.some((s) => s.id !== OFFLINE_SUMMARIZER_ID) ||
        (options.agentHome !== undefined && (await agentConfigExists(options.env, options.agentHome))))
    )
      this.pi = await loadPiAi();
    if (this.pi) this.catalogProviders = this.pi.getProviders().map(String).sort();
    const summarizers: Summarizer[] = [...options.configured.summarizers];
    const taken = new Set(summarizers.map((summarizer) => summarizer.id));

    this.views = [];
    for (const saved of this.store.list()) {
      const { view, summarizer } = this.build(saved);
      if (summarizer && taken.has(summarizer.id)) {
        view.usable = false;
        view.problem = {
          message: `${summarizer.id} is also configured in canopy.config.json or the CANOPY_SUMMARY_* variables, which win.`,
          fix: 'Remove one of the two.',
        };
      } else if (summarizer) {
        summarizers.push(summarizer);
        taken.add(summarizer.id);
      }
      this.views.push(view);
    }

    this.discovered = [];
    if (options.agentHome !== undefined && this.pi) {
      for (const discover of [discoverPiModel, discoverOmpModel]) {
        try {
          const found = await discover({ env: options.env, home: options.agentHome });
          if (found) this.discovered.push(found);
        } catch (error) {
          options.warn(`reading an agent's configuration failed: ${this.scrub((error as Error).message)}`);
        }
      }
    }
    for (const found of this.discovered) {
      if (!found.target) continue;
      try {
        summarizers.push({
          ...createLlmSummarizer(this.remembering(found.target)),
          source: `${found.from}; ${found.credential}`,
        } as Summarizer);
      } catch (error) {
        found.problem = { message: (error as Error).message, fix: 'Fix it in the agent’s own settings.' };
        delete found.target;
      }
    }

    // The config file's explicit default wins; else the model pi uses, else oh-my-pi's; else offline.
    const configuredDefault = options.configured.defaultId;
    const zeroSetup = this.discovered.find((found) => found.target)?.id;
    const defaultId =
      configuredDefault !== OFFLINE_SUMMARIZER_ID ? configuredDefault : (zeroSetup ?? OFFLINE_SUMMARIZER_ID);
    options.registry.replace(
      summarizers,
      summarizers.some((s) => s.id === defaultId) ? defaultId : (summarizers[0]?.id ?? null),
    );
  }

  /** A saved provider's view for the page and, when it can be used, its summariser. */
  private build(saved: SavedProvider): { view: ProviderView; summarizer?: Summarizer } {
    const config = this.configOf(saved);
    const key = this.keyOf(saved);
    const view: ProviderView = {
      id: saved.id,
      summarizerId: llmSummarizerId(saved),
      provider: saved.provider,
      model: saved.model,
      ...(saved.baseUrl ? { baseUrl: displayUrl(saved.baseUrl) } : {}),
      ...(saved.contextWindow ? { contextWindow: saved.contextWindow } : {}),
      ...(saved.maxTokens ? { maxTokens: saved.maxTokens } : {}),
      ...(saved.reserveTokens ? { reserveTokens: saved.reserveTokens } : {}),
      ...(saved.reasoning !== undefined ? { reasoning: saved.reasoning } : {}),
      key,
      usable: false,
    };
    const problem = this.problemOf(saved, key);
    if (problem) return { view: { ...view, problem } };
    try {
      const target = this.remembering(this.targetOf(saved, config));
      const summarizer = { ...createLlmSummarizer(target), source: 'set up in Settings' } as Summarizer;
      return { view: { ...view, usable: true }, summarizer };
    } catch (error) {
      return { view: { ...view, problem: this.problemFromError((error as Error).message) } };
    }
  }

  private configOf(saved: ProviderInput): LlmSummarizerConfig {
    return {
      provider: saved.provider,
      model: saved.model,
      ...(saved.baseUrl ? { baseUrl: saved.baseUrl } : {}),
      ...(saved.contextWindow ? { contextWindow: saved.contextWindow } : {}),
      ...(saved.maxTokens ? { maxTokens: saved.maxTokens } : {}),
      ...(saved.reserveTokens ? { reserveTokens: saved.reserveTokens } : {}),
      ...(saved.reasoning !== undefined ? { reasoning: saved.reasoning } : {}),
    };
  }

  /** The target of a provider; its key is read when a request needs it (a variable may change). */
  private targetOf(saved: ProviderInput, config: LlmSummarizerConfig): LlmTarget {
    const target = llmTargetOf(config, this.options.env);
    return {
      ...target,
      auth: async (signal) => {
        if (saved.apiKey) return { apiKey: saved.apiKey };
        if (saved.apiKeyEnv) {
          const value = this.options.env[saved.apiKeyEnv];
          if (!value) throw new Error(`$${saved.apiKeyEnv} is not set for Canopy`);
          return { apiKey: value };
        }
        return target.auth(signal);
      },
    };
  }

  private keyOf(saved: ProviderInput): ProviderView['key'] {
    if (saved.apiKey) return { kind: 'stored', masked: maskKey(saved.apiKey), present: true };
    if (saved.apiKeyEnv)
      return { kind: 'env', variable: saved.apiKeyEnv, present: Boolean(this.options.env[saved.apiKeyEnv]) };
    return {
      kind: saved.baseUrl ? 'none' : 'provider-env',
      present: !saved.baseUrl && this.providerEnvKey(saved.provider) !== undefined,
    };
  }

  private providerEnvKey(provider: string): string | undefined {
    const pi = this.pi;
    if (!pi) return undefined;
    const saved = process.env;
    try {
      process.env = this.options.env;
      return pi.getEnvApiKey(provider);
    } finally {
      process.env = saved;
    }
  }

  private problemOf(saved: ProviderInput, key: ProviderView['key']): ProviderView['problem'] | undefined {
    if (saved.baseUrl) {
      try {
        const url = new URL(saved.baseUrl);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
      } catch {
        return {
          message: `The base URL "${displayUrl(saved.baseUrl)}" is not an http(s) URL.`,
          fix: 'Write the endpoint’s URL, e.g. http://127.0.0.1:11434/v1 for Ollama.',
        };
      }
    }
    if (key.kind === 'env' && !key.present)
      return {
        message: `The key is to come from $${key.variable}, which is not set in Canopy’s environment.`,
        fix: `Start Canopy with ${key.variable} set, or type the key itself.`,
      };
    if (key.kind === 'provider-env' && !key.present)
      return {
        message: `No key for ${saved.provider}: none typed, and its usual variable is not set.`,
        fix: 'Type the key (kept owner-only in Canopy’s state folder), or the name of the variable that holds it.',
      };
    return undefined;
  }

  private problemFromError(message: string): NonNullable<ProviderView['problem']> {
    if (message.includes('reserveTokens'))
      return {
        message: `${message.charAt(0).toUpperCase()}${message.slice(1)}.`,
        fix: 'Lower “Reserve tokens” below the context window, or raise the context window to the model’s real one.',
      };
    if (message.startsWith('Unknown summary provider'))
      return {
        message,
        fix: 'Pick a provider of the list, or give a base URL for an OpenAI-compatible endpoint.',
      };
    if (message.startsWith('Unknown model'))
      return {
        message,
        fix: 'Pick a model of the provider’s list, or give a base URL for an OpenAI-compatible endpoint.',
      };
    return { message, fix: 'Correct the fields above.' };
  }

  /** Records the secrets a target's requests resolve, so they are scrubbed from then on. */
  private remembering(target: LlmTarget): LlmTarget {
    return {
      ...target,
      auth: async (signal) => {
        const auth = await target.auth(signal);
        for (const value of [auth.apiKey, ...Object.values(auth.headers ?? {})]) {
          if (typeof value === 'string' && value.length >= 6) this.resolved.add(value);
        }
        return auth;
      },
    };
  }

  /** Every secret Canopy knows of: saved keys, the config file's, provider variables, resolved logins. */
  secrets(): string[] {
    const secrets = new Set<string>([
      ...this.options.configured.secrets,
      ...this.resolved,
      ...this.discovered.flatMap((found) => found.secrets ?? []),
    ]);
    for (const saved of this.store.list()) {
      if (saved.apiKey) secrets.add(saved.apiKey);
      if (saved.baseUrl) for (const secret of urlSecrets(saved.baseUrl)) secrets.add(secret);
      if (saved.apiKeyEnv && this.options.env[saved.apiKeyEnv])
        secrets.add(this.options.env[saved.apiKeyEnv] as string);
    }
    for (const provider of this.catalogProviders) {
      const value = this.providerEnvKey(provider);
      if (value) secrets.add(value);
    }
    return [...secrets].filter((secret) => secret.length >= 6);
  }

  scrub(text: string): string {
    return scrubSecrets(text, this.secrets());
  }

  view(): ProvidersResponse {
    const configProblems = this.options.configured.problems.map((message) => ({
      message,
      fix: 'Fix canopy.config.json in the state folder or the CANOPY_SUMMARY_* variables and restart Canopy, or set the provider up here instead.',
    }));
    if (this.storeProblem)
      configProblems.push({
        message: this.storeProblem,
        fix: 'Remove or repair the file; providers saved here are written there.',
      });
    return {
      saved: this.views,
      discovered: this.discovered.map((found) => ({
        source: found.source,
        summarizerId: found.id,
        provider: found.provider,
        model: found.model,
        from: found.from,
        credential: found.credential,
        usable: found.target !== undefined,
        ...(found.problem ? { problem: found.problem } : {}),
      })),
      configProblems: configProblems.map((problem) => ({
        message: this.scrub(problem.message),
        fix: problem.fix,
      })),
      catalogProviders: this.catalogProviders,
      defaultSummarizerId: this.options.registry.defaultId,
    };
  }

  async save(input: ProviderInput): Promise<ProvidersResponse> {
    if (input.baseUrl === undefined) {
      // Without a base URL the provider and model must be pi-ai's: say so now, not at the first summary.
      try {
        llmTargetOf(this.configOf(input), this.options.env);
      } catch (error) {
        const problem = this.problemFromError((error as Error).message);
        throw new AppError('BAD_PROVIDER', `${problem.message} ${problem.fix}`);
      }
    }
    this.store.save(input);
    await this.refresh();
    return this.view();
  }

  async remove(id: string): Promise<ProvidersResponse> {
    if (!this.store.remove(id)) throw new AppError('NOT_FOUND', `No saved provider "${id}".`);
    await this.refresh();
    return this.view();
  }

  /** One small request to the provider as typed (or saved): its answer, or the exact cause. */
  async test(request: ProviderTestRequest, linked?: AbortSignal): Promise<ProviderTestResult> {
    let input: ProviderInput;
    if ('savedId' in request) {
      const saved = this.store.get(request.savedId);
      if (!saved) throw new AppError('NOT_FOUND', `No saved provider "${request.savedId}".`);
      input = saved;
    } else {
      // Editing a saved provider without retyping its key tests with the saved key.
      const saved = request.id ? this.store.get(request.id) : undefined;
      input =
        request.apiKey === undefined && request.apiKeyEnv === undefined && saved?.apiKey
          ? { ...request, apiKey: saved.apiKey }
          : request;
    }
    const name = `${input.provider}/${input.model}`;
    const started = Date.now();
    const finish = (result: Omit<ProviderTestResult, 'elapsedMs' | 'model'>): ProviderTestResult => ({
      ...result,
      model: name,
      elapsedMs: Date.now() - started,
    });
    const key = this.keyOf(input);
    const problem = this.problemOf(input, key);
    if (problem) return finish({ ok: false, message: `${problem.message} ${problem.fix}` });
    let target: LlmTarget;
    try {
      target = this.targetOf(input, this.configOf(input));
    } catch (error) {
      const p = this.problemFromError((error as Error).message);
      return finish({ ok: false, message: `${p.message} ${p.fix}` });
    }
    const secrets = [
      ...this.secrets(),
      ...(input.apiKey ? [input.apiKey] : []),
      ...(input.baseUrl ? urlSecrets(input.baseUrl) : []),
    ];
    const timeout = AbortSignal.timeout(this.options.testTimeoutMs ?? 60_000);
    const signal = linked ? AbortSignal.any([timeout, linked]) : timeout;
    try {
      const auth = await target.auth(signal);
      const pi = await loadPiAi();
      const model = auth.baseUrl ? { ...target.model, baseUrl: auth.baseUrl } : target.model;
      const response = await pi
        .streamSimple(
          model,
          {
            messages: [
              { role: 'user', content: [{ type: 'text', text: TEST_PROMPT }], timestamp: Date.now() },
            ],
          },
          {
            apiKey: auth.apiKey,
            headers: auth.headers,
            signal,
            maxTokens: Math.min(model.maxTokens || 256, 256),
          },
        )
        .result();
      if (response.stopReason === 'error' || response.stopReason === 'aborted') {
        const message = timeout.aborted
          ? `no answer within ${((this.options.testTimeoutMs ?? 60_000) / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} s`
          : describeFailure(response.errorMessage || 'the provider reported an error', model.baseUrl);
        return finish({ ok: false, message: scrubSecrets(message, secrets) });
      }
      const answer = response.content
        .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
        .map((block) => block.text)
        .join('\n')
        .trim();
      return finish({ ok: true, answer: scrubSecrets(answer || '(an empty answer)', secrets) });
    } catch (error) {
      return finish({
        ok: false,
        message: scrubSecrets(describeFailure((error as Error).message, input.baseUrl), secrets),
      });
    }
  }

  /** The models pi-ai knows for a provider (the dialog's model list). */
  async catalog(provider: string) {
    const pi = await loadPiAi();
    const models = pi.getModels(provider as never) as Array<{
      id: string;
      name?: string;
      contextWindow?: number;
      maxTokens?: number;
      reasoning?: boolean;
    }>;
    return {
      models: models.map((model) => ({
        id: model.id,
        name: model.name ?? model.id,
        contextWindow: model.contextWindow ?? 0,
        maxTokens: model.maxTokens ?? 0,
        reasoning: model.reasoning === true,
      })),
    };
  }
}

/** Whether pi's settings or oh-my-pi's config.yml is there to be read. */
async function agentConfigExists(env: NodeJS.ProcessEnv, home: string): Promise<boolean> {
  for (const file of [
    path.join(piAgentDir(env, home), 'settings.json'),
    path.join(ompAgentDir(env, home), 'config.yml'),
  ]) {
    if (await entryExists(file)) return true;
  }
  return false;
}
