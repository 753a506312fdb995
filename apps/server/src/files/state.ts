import path from 'node:path';
import {
  applySettingsPatch,
  createValidator,
  DEFAULT_SETTINGS,
  Settings,
  type SettingsPatch,
} from '@canopy/protocol';
import { readJsonNoFollow } from './confined';
import { writeJsonFileSync } from './files';

/** Where a session's leaf was, and the file it was valid for. */
export interface StoredLeaf {
  leafId: string | null;
  /** File size, identity and entry count when the leaf was stored. */
  size: number;
  ino: number;
  dev: number;
  entryCount: number;
  /** Header id, to notice a file replaced by another session under the same path. */
  headerId: string;
}

const LEAVES_FILE = 'leaves.json';
const SETTINGS_FILE = 'settings.json';
/** The leaves of every session ever opened, ~250 bytes each: far more than anyone has. */
const MAX_LEAVES_BYTES = 64 << 20;
/** Leaf moves that follow an agent can come many per second; they are written at most this often. */
const LEAF_WRITE_DELAY_MS = 100;

const settingsValidator = createValidator(Settings);

function isStoredLeaf(value: unknown): value is StoredLeaf {
  if (value === null || typeof value !== 'object') return false;
  const leaf = value as Record<string, unknown>;
  return (
    (leaf.leafId === null || typeof leaf.leafId === 'string') &&
    typeof leaf.size === 'number' &&
    typeof leaf.ino === 'number' &&
    typeof leaf.dev === 'number' &&
    typeof leaf.entryCount === 'number' &&
    typeof leaf.headerId === 'string'
  );
}

/** Canopy's own state (leaves and settings), kept in the state folder, never in session files. */
export class StateStore {
  private leaves = new Map<string, StoredLeaf>();
  private settings: Settings = structuredClone(DEFAULT_SETTINGS);
  private leafTimer: NodeJS.Timeout | undefined;
  private readonly log: (message: string) => void;

  constructor(
    readonly stateDir: string,
    log: (message: string) => void = () => undefined,
  ) {
    this.log = log;
  }

  /** Loads both files; a damaged file is reported and replaced by defaults, never fatal. */
  async load(): Promise<void> {
    try {
      const leaves = await readJsonNoFollow(path.join(this.stateDir, LEAVES_FILE), MAX_LEAVES_BYTES);
      if (leaves && typeof leaves === 'object' && !Array.isArray(leaves)) {
        for (const [id, leaf] of Object.entries(leaves as Record<string, unknown>)) {
          if (isStoredLeaf(leaf)) this.leaves.set(id, leaf);
        }
      }
    } catch (error) {
      this.log(`ignoring unreadable ${LEAVES_FILE}: ${(error as Error).message}`);
    }
    try {
      const settings = await readJsonNoFollow(path.join(this.stateDir, SETTINGS_FILE));
      if (settings !== undefined) {
        const merged = applySettingsPatch(DEFAULT_SETTINGS, settings as SettingsPatch);
        if (settingsValidator.check(merged)) this.settings = merged;
        else this.log(`ignoring invalid ${SETTINGS_FILE}: ${settingsValidator.firstError(merged)}`);
      }
    } catch (error) {
      this.log(`ignoring unreadable ${SETTINGS_FILE}: ${(error as Error).message}`);
    }
  }

  getLeaf(sessionId: string): StoredLeaf | undefined {
    return this.leaves.get(sessionId);
  }

  setLeaf(sessionId: string, leaf: StoredLeaf): void {
    this.leaves.set(sessionId, leaf);
    this.leafTimer ??= setTimeout(() => this.flushLeaves(), LEAF_WRITE_DELAY_MS);
  }

  flushLeaves(): void {
    if (this.leafTimer) clearTimeout(this.leafTimer);
    this.leafTimer = undefined;
    try {
      writeJsonFileSync(path.join(this.stateDir, LEAVES_FILE), Object.fromEntries(this.leaves));
    } catch (error) {
      this.log(`could not save leaves: ${(error as Error).message}`);
    }
  }

  getSettings(): Settings {
    return structuredClone(this.settings);
  }

  updateSettings(patch: SettingsPatch): Settings {
    const next = applySettingsPatch(this.settings, patch);
    writeJsonFileSync(path.join(this.stateDir, SETTINGS_FILE), next);
    this.settings = next;
    return this.getSettings();
  }

  close(): void {
    if (this.leafTimer) this.flushLeaves();
  }
}
