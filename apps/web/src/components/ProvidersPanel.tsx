// The summary providers of the settings dialog: the models found in pi's and oh-my-pi's own
// configuration (where each came from, or why it cannot be used and the fix), every configuration
// problem, the providers set up here (key masked), and the form that adds or edits one, with a Test
// that makes one small request and shows the answer or the exact cause. Saved providers are offered
// at once: the server swaps its summarisers without a restart.

import { useEffect, useState } from 'react';
import type {
  CatalogResponse,
  ProviderInput,
  ProvidersResponse,
  ProviderTestRequest,
  ProviderTestResult,
  ProviderView,
} from '@canopy/protocol';
import { messageOf } from '../net/errors';
import { useAppStore } from '../store/context';

interface FormState {
  id?: string;
  provider: string;
  model: string;
  baseUrl: string;
  contextWindow: string;
  maxTokens: string;
  reserveTokens: string;
  keyMode: 'key' | 'env';
  apiKey: string;
  apiKeyEnv: string;
}

const EMPTY_FORM: FormState = {
  provider: '',
  model: '',
  baseUrl: '',
  contextWindow: '',
  maxTokens: '',
  reserveTokens: '',
  keyMode: 'key',
  apiKey: '',
  apiKeyEnv: '',
};

const NO_MODELS: CatalogResponse['models'] = [];

type TestState = { running: true } | (ProviderTestResult & { running: false }) | null;

function inputOf(form: FormState): ProviderInput | string {
  const provider = form.provider.trim();
  const model = form.model.trim();
  if (!provider || !model) return 'Give a provider and a model.';
  const number = (text: string, name: string): number | undefined | string => {
    if (text.trim() === '') return undefined;
    const value = Number(text);
    return Number.isInteger(value) && value > 0 ? value : `${name} must be a whole number of tokens.`;
  };
  const contextWindow = number(form.contextWindow, 'The context window');
  const maxTokens = number(form.maxTokens, 'The output limit');
  const reserveTokens = number(form.reserveTokens, 'The reserve');
  if (typeof contextWindow === 'string') return contextWindow;
  if (typeof maxTokens === 'string') return maxTokens;
  if (typeof reserveTokens === 'string') return reserveTokens;
  return {
    ...(form.id ? { id: form.id } : {}),
    provider,
    model,
    ...(form.baseUrl.trim() ? { baseUrl: form.baseUrl.trim() } : {}),
    ...(contextWindow ? { contextWindow } : {}),
    ...(maxTokens ? { maxTokens } : {}),
    ...(reserveTokens ? { reserveTokens } : {}),
    ...(form.keyMode === 'env' && form.apiKeyEnv.trim() ? { apiKeyEnv: form.apiKeyEnv.trim() } : {}),
    ...(form.keyMode === 'key' && form.apiKey !== '' ? { apiKey: form.apiKey } : {}),
  };
}

function keyText(provider: ProviderView): string {
  const { key } = provider;
  switch (key.kind) {
    case 'stored':
      return `key ${key.masked ?? ''} (kept in Canopy's state folder)`;
    case 'env':
      return `key from $${key.variable}${key.present ? '' : ' (not set)'}`;
    case 'provider-env':
      return key.present ? "key from the provider's usual variable" : 'no key';
    case 'none':
      return 'no key (a local endpoint)';
  }
}

function Problem({ problem }: { problem: { message: string; fix: string } }) {
  return (
    <p className="notice error provider-problem" data-testid="providers.problem">
      {problem.message} <strong>Fix:</strong> {problem.fix}
    </p>
  );
}

export function ProvidersPanel() {
  const store = useAppStore();
  const [view, setView] = useState<ProvidersResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<FormState>(EMPTY_FORM);
  const [catalogOf, setCatalog] = useState<CatalogResponse['models']>([]);
  const [test, setTest] = useState<TestState>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let live = true;
    store
      .getState()
      .listProviders()
      .then(
        (answer) => live && setView(answer),
        (failure: unknown) => live && setError(messageOf(failure)),
      );
    return () => {
      live = false;
    };
  }, [store]);

  const provider = form.provider.trim();
  const known = view?.catalogProviders.includes(provider) ?? false;
  // The list of the provider typed; another provider's list is not shown meanwhile.
  const catalog = known ? catalogOf : NO_MODELS;
  useEffect(() => {
    if (!known) return;
    let live = true;
    store
      .getState()
      .providerCatalog(provider)
      .then(
        (answer) => live && setCatalog(answer.models),
        () => live && setCatalog([]),
      );
    return () => {
      live = false;
    };
  }, [store, provider, known]);

  const patch = (change: Partial<FormState>) => {
    setForm((current) => ({ ...current, ...change }));
    setTest(null);
  };

  // The store's save and delete have fetched the server's info again by now (its summarisers).
  const adopt = (answer: ProvidersResponse) => setView(answer);

  const save = async () => {
    const input = inputOf(form);
    if (typeof input === 'string') {
      setError(input);
      return;
    }
    setSaving(true);
    setError(null);
    try {
      adopt(await store.getState().saveProvider(input));
      store
        .getState()
        .toast(`${input.provider}/${input.model} saved; it is offered in the summary dialog now`);
      setForm(EMPTY_FORM);
      setTest(null);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setSaving(false);
    }
  };

  const runTest = async (request: ProviderTestRequest) => {
    setTest({ running: true });
    try {
      setTest({ ...(await store.getState().testProvider(request)), running: false });
    } catch (failure) {
      setTest({ ok: false, running: false, model: '', message: messageOf(failure), elapsedMs: 0 });
    }
  };

  const testForm = () => {
    const input = inputOf(form);
    if (typeof input === 'string') setError(input);
    else void runTest(input);
  };

  return (
    <section className="providers" data-testid="providers">
      <h3>Summary models</h3>
      {error && (
        <p className="notice error" role="alert" data-testid="providers.error">
          {error}
        </p>
      )}
      {view === null && !error && <p className="help">Reading the providers…</p>}
      {view?.configProblems.map((problem, i) => (
        <Problem key={`config-${i}`} problem={problem} />
      ))}
      {view && view.discovered.length > 0 && (
        <ul className="provider-list" aria-label="Models of your agents">
          {view.discovered.map((found) => (
            <li key={found.summarizerId} data-testid="providers.discovered" data-usable={found.usable}>
              <div className="provider-line">
                <strong>
                  {found.source === 'pi' ? "pi's model" : "oh-my-pi's model"}: {found.provider}/{found.model}
                </strong>
                <span className={found.usable ? 'badge ok' : 'badge'}>
                  {found.usable ? 'offered' : 'not offered'}
                </span>
              </div>
              <div className="help">
                from {found.from}
                {found.credential ? `; ${found.credential}` : ''}
              </div>
              {found.problem && <Problem problem={found.problem} />}
            </li>
          ))}
        </ul>
      )}
      {view && view.saved.length > 0 && (
        <ul className="provider-list" aria-label="Providers set up here">
          {view.saved.map((saved) => (
            <li key={saved.id} data-testid="providers.saved" data-id={saved.id} data-usable={saved.usable}>
              <div className="provider-line">
                <strong>
                  {saved.provider}/{saved.model}
                </strong>
                <span className={saved.usable ? 'badge ok' : 'badge'}>
                  {saved.usable ? 'offered' : 'not offered'}
                </span>
                <span className="provider-actions">
                  <button
                    type="button"
                    data-testid="providers.test-saved"
                    onClick={() => void runTest({ savedId: saved.id })}
                  >
                    Test
                  </button>
                  <button
                    type="button"
                    data-testid="providers.edit"
                    onClick={() =>
                      setForm({
                        ...EMPTY_FORM,
                        id: saved.id,
                        provider: saved.provider,
                        model: saved.model,
                        baseUrl: saved.baseUrl ?? '',
                        contextWindow: saved.contextWindow ? String(saved.contextWindow) : '',
                        maxTokens: saved.maxTokens ? String(saved.maxTokens) : '',
                        reserveTokens: saved.reserveTokens ? String(saved.reserveTokens) : '',
                        keyMode: saved.key.kind === 'env' ? 'env' : 'key',
                        apiKeyEnv: saved.key.variable ?? '',
                      })
                    }
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    data-testid="providers.remove"
                    onClick={() =>
                      void store
                        .getState()
                        .deleteProvider(saved.id)
                        .then(adopt, (f: unknown) => setError(messageOf(f)))
                    }
                  >
                    Remove
                  </button>
                </span>
              </div>
              <div className="help">
                {saved.baseUrl ? `${saved.baseUrl}; ` : ''}
                {saved.contextWindow ? `context window ${saved.contextWindow.toLocaleString()} tokens; ` : ''}
                {keyText(saved)}
              </div>
              {saved.problem && <Problem problem={saved.problem} />}
            </li>
          ))}
        </ul>
      )}
      <form
        className="provider-form"
        data-testid="providers.form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h4>{form.id ? `Edit ${form.id}` : 'Add a provider'}</h4>
        <label>
          Provider
          <input
            data-testid="providers.provider"
            list="canopy-provider-list"
            value={form.provider}
            placeholder="openai, anthropic, … or any name for a local endpoint"
            onChange={(e) => patch({ provider: e.target.value })}
          />
          <datalist id="canopy-provider-list">
            {view?.catalogProviders.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </label>
        <label>
          Model
          <input
            data-testid="providers.model"
            list="canopy-model-list"
            value={form.model}
            placeholder={known ? 'a model of the list' : "the endpoint's model name"}
            onChange={(e) => {
              const chosen = catalog.find((model) => model.id === e.target.value);
              patch({
                model: e.target.value,
                ...(chosen && !form.contextWindow ? { contextWindow: String(chosen.contextWindow) } : {}),
              });
            }}
          />
          <datalist id="canopy-model-list">
            {catalog.map((model) => (
              <option key={model.id} value={model.id}>
                {model.name}
              </option>
            ))}
          </datalist>
        </label>
        <label>
          Base URL <span className="help">(an OpenAI-compatible endpoint; empty for the provider's own)</span>
          <input
            data-testid="providers.base-url"
            value={form.baseUrl}
            placeholder="http://127.0.0.1:11434/v1"
            onChange={(e) => patch({ baseUrl: e.target.value })}
          />
        </label>
        <div className="provider-numbers">
          <label>
            Context window
            <input
              data-testid="providers.context-window"
              inputMode="numeric"
              value={form.contextWindow}
              placeholder="128000"
              onChange={(e) => patch({ contextWindow: e.target.value })}
            />
          </label>
          <label>
            Output limit
            <input
              data-testid="providers.max-tokens"
              inputMode="numeric"
              value={form.maxTokens}
              placeholder="16384"
              onChange={(e) => patch({ maxTokens: e.target.value })}
            />
          </label>
          <label>
            Reserve tokens
            <input
              data-testid="providers.reserve-tokens"
              inputMode="numeric"
              value={form.reserveTokens}
              placeholder="16384"
              title="Tokens of the window kept free for the prompt and the answer; the rest is the conversation's budget"
              onChange={(e) => patch({ reserveTokens: e.target.value })}
            />
          </label>
        </div>
        <fieldset className="provider-key">
          <legend>Key</legend>
          <label>
            <input type="radio" checked={form.keyMode === 'key'} onChange={() => patch({ keyMode: 'key' })} />{' '}
            the key
          </label>
          <label>
            <input
              type="radio"
              data-testid="providers.key-mode-env"
              checked={form.keyMode === 'env'}
              onChange={() => patch({ keyMode: 'env' })}
            />{' '}
            the variable that holds it
          </label>
          {form.keyMode === 'key' ? (
            <input
              type="password"
              autoComplete="off"
              data-testid="providers.key"
              value={form.apiKey}
              placeholder={
                form.id ? 'unchanged (the saved key is kept)' : 'sk-… (kept owner-only on the server)'
              }
              onChange={(e) => patch({ apiKey: e.target.value })}
            />
          ) : (
            <input
              data-testid="providers.key-env"
              value={form.apiKeyEnv}
              placeholder="OPENAI_API_KEY"
              onChange={(e) => patch({ apiKeyEnv: e.target.value })}
            />
          )}
        </fieldset>
        <div className="provider-buttons">
          {form.id && (
            <button type="button" onClick={() => setForm(EMPTY_FORM)}>
              Cancel edit
            </button>
          )}
          <button
            type="button"
            data-testid="providers.test"
            onClick={testForm}
            disabled={test?.running === true}
          >
            Test
          </button>
          <button type="submit" className="primary" data-testid="providers.save" disabled={saving}>
            Save
          </button>
        </div>
      </form>
      {test && (
        <p
          className={test.running ? 'notice' : test.ok ? 'notice ok' : 'notice error'}
          role="status"
          data-testid="providers.test-result"
          data-ok={test.running ? undefined : test.ok}
        >
          {test.running
            ? 'Testing: one small request…'
            : test.ok
              ? `${test.model} answered in ${(test.elapsedMs / 1000).toFixed(1)} s: “${test.answer ?? ''}”`
              : `${test.model ? `${test.model} failed` : 'The test failed'}: ${test.message ?? 'no answer'}`}
        </p>
      )}
    </section>
  );
}
