// The summary providers set up in the page, kept in the state folder as `providers.json`, owner-only
// from its first byte (written like every state file: a 0600 temporary file renamed over it). A key
// is kept here and never sent back; the page sees it masked.
import path from 'node:path';
import type { ProviderInput } from '@canopy/protocol';
import { readBoundedNoFollow } from '../files/confined';
import { writeJsonFileSync } from '../files/files';

export const PROVIDERS_FILE = 'providers.json';
const PROVIDERS_MAX_BYTES = 1024 * 1024;

/** A saved provider: what the dialog sent, with an id. */
export type SavedProvider = ProviderInput & { id: string };

function isSaved(value: unknown): value is SavedProvider {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.id === 'string' && typeof record.provider === 'string' && typeof record.model === 'string'
  );
}

/** A key shown: its first three and last four characters for a long one, else only that there is one. */
export function maskKey(key: string): string {
  return key.length >= 16 ? `${key.slice(0, 3)}…${key.slice(-4)}` : '••••';
}

/** An id from the provider and model, as a path segment (the dialog's edits keep theirs). */
export function providerIdOf(input: Pick<ProviderInput, 'provider' | 'model'>): string {
  return `${input.provider}-${input.model}`.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 200);
}

export class ProviderStore {
  private providers: SavedProvider[] = [];

  constructor(private readonly stateDir: string) {}

  get file(): string {
    return path.join(this.stateDir, PROVIDERS_FILE);
  }

  /** Reads the file again; a damaged file is an Error naming it (the page shows it). */
  async load(): Promise<void> {
    let text: string;
    try {
      text = (await readBoundedNoFollow(this.file, { maxBytes: PROVIDERS_MAX_BYTES })).bytes.toString('utf8');
    } catch (error) {
      if ((error as { reason?: string }).reason === 'deleted') {
        this.providers = [];
        return;
      }
      throw new Error(`${this.file} cannot be read: ${(error as Error).message}`);
    }
    const parsed = JSON.parse(text) as unknown;
    const list = (parsed as { providers?: unknown } | null)?.providers;
    if (!Array.isArray(list)) throw new Error(`${this.file} must hold { "providers": [ … ] }`);
    this.providers = list.filter(isSaved);
  }

  list(): readonly SavedProvider[] {
    return this.providers;
  }

  get(id: string): SavedProvider | undefined {
    return this.providers.find((provider) => provider.id === id);
  }

  /**
   * Adds or replaces a provider. Editing without a key keeps the saved key (the page never has it);
   * an empty key, or a variable name, removes it.
   */
  save(input: ProviderInput): SavedProvider {
    const id = input.id ?? providerIdOf(input);
    const previous = this.get(id);
    const saved: SavedProvider = { ...input, id };
    if (saved.apiKey === undefined && saved.apiKeyEnv === undefined && previous?.apiKey)
      saved.apiKey = previous.apiKey;
    if (saved.apiKey === '' || saved.apiKeyEnv !== undefined) delete saved.apiKey;
    const next = previous
      ? this.providers.map((provider) => (provider.id === id ? saved : provider))
      : [...this.providers, saved];
    writeJsonFileSync(this.file, { providers: next });
    this.providers = next;
    return saved;
  }

  remove(id: string): boolean {
    if (!this.get(id)) return false;
    const next = this.providers.filter((provider) => provider.id !== id);
    writeJsonFileSync(this.file, { providers: next });
    this.providers = next;
    return true;
  }
}
