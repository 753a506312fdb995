import type { BranchResult, NavigateResult } from '@canopy/protocol';
import type {
  BeforeBranchEvent,
  BeforeBranchResult,
  BeforeTreeEvent,
  BeforeTreeResult,
  BranchEvent,
  CanopyExtension,
  CanopyExtensionApi,
  ExtensionEventName,
  ExtensionHandlers,
  ExtensionNavigateOptions,
  TreeEvent,
} from './types';

/** The server operations extensions may call; bound after the services exist. */
export interface ExtensionServices {
  navigateTree(
    sessionId: string,
    targetId: string,
    options: ExtensionNavigateOptions,
  ): Promise<NavigateResult>;
  branch(sessionId: string, entryId: string): Promise<BranchResult>;
}

export interface ExtensionLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

interface Registered<E extends ExtensionEventName> {
  extension: string;
  handler: ExtensionHandlers[E];
}

/**
 * Runs extension handlers in load order. A throwing handler is logged and reported through
 * `onError`, and counts as having returned nothing: an extension can never crash the server or
 * block a navigation by failing.
 */
export class ExtensionHost {
  private handlers: { [E in ExtensionEventName]: Registered<E>[] } = {
    session_before_tree: [],
    session_tree: [],
    session_before_branch: [],
    session_branch: [],
  };
  private services: ExtensionServices | undefined;

  constructor(
    private readonly log: ExtensionLogger,
    private readonly onError: (extension: string, message: string) => void = () => undefined,
  ) {}

  bind(services: ExtensionServices): void {
    this.services = services;
  }

  /** Registers one extension module's default export; its own errors are contained. */
  async register(name: string, extension: CanopyExtension): Promise<void> {
    const api: CanopyExtensionApi = {
      on: (event, handler) => {
        if (!(event in this.handlers)) throw new Error(`unknown extension event "${String(event)}"`);
        (this.handlers[event] as Registered<typeof event>[]).push({ extension: name, handler });
      },
      navigateTree: (sessionId, targetId, options = {}) =>
        this.requireServices().navigateTree(sessionId, targetId, options),
      branch: (sessionId, entryId) => this.requireServices().branch(sessionId, entryId),
      log: {
        info: (message) => this.log.info(`[${name}] ${message}`),
        warn: (message) => this.log.warn(`[${name}] ${message}`),
        error: (message) => this.log.error(`[${name}] ${message}`),
      },
    };
    try {
      await extension(api);
    } catch (error) {
      this.fail(name, 'setup', error);
    }
  }

  hasHandlers(event: ExtensionEventName): boolean {
    return this.handlers[event].length > 0;
  }

  /**
   * Merges the results in load order: the first `cancel` stops at once; a later summary or
   * instruction override replaces an earlier one.
   */
  async beforeTree(event: BeforeTreeEvent): Promise<BeforeTreeResult> {
    const merged: BeforeTreeResult = {};
    for (const { extension, handler } of this.handlers.session_before_tree) {
      if (event.signal.aborted) break;
      let result: BeforeTreeResult | void;
      try {
        result = await handler(event);
      } catch (error) {
        this.fail(extension, 'session_before_tree', error);
        continue;
      }
      if (!result || typeof result !== 'object') continue;
      if (result.cancel === true) return { cancel: true };
      if (result.summary && typeof result.summary.summary === 'string') merged.summary = result.summary;
      if (typeof result.customInstructions === 'string')
        merged.customInstructions = result.customInstructions;
      if (typeof result.replaceInstructions === 'boolean')
        merged.replaceInstructions = result.replaceInstructions;
      if (typeof result.label === 'string') merged.label = result.label;
    }
    return merged;
  }

  async tree(event: TreeEvent): Promise<void> {
    for (const { extension, handler } of this.handlers.session_tree) {
      try {
        await handler(event);
      } catch (error) {
        this.fail(extension, 'session_tree', error);
      }
    }
  }

  async beforeBranch(event: BeforeBranchEvent): Promise<BeforeBranchResult> {
    for (const { extension, handler } of this.handlers.session_before_branch) {
      try {
        const result = await handler(event);
        if (result && typeof result === 'object' && result.cancel === true) return { cancel: true };
      } catch (error) {
        this.fail(extension, 'session_before_branch', error);
      }
    }
    return {};
  }

  async branch(event: BranchEvent): Promise<void> {
    for (const { extension, handler } of this.handlers.session_branch) {
      try {
        await handler(event);
      } catch (error) {
        this.fail(extension, 'session_branch', error);
      }
    }
  }

  private requireServices(): ExtensionServices {
    if (!this.services)
      throw new Error('Canopy is still starting; call navigateTree/branch from an event handler');
    return this.services;
  }

  private fail(extension: string, where: string, error: unknown): void {
    const message = `extension ${extension} failed in ${where}: ${error instanceof Error ? error.message : String(error)}`;
    this.log.error(message);
    this.onError(extension, message);
  }
}

/** Imports each module path and registers its default export; a bad module is reported and skipped. */
export async function loadExtensions(
  host: ExtensionHost,
  modules: Array<{ name: string; load: () => Promise<unknown> }>,
  log: ExtensionLogger,
): Promise<void> {
  for (const module of modules) {
    let loaded: unknown;
    try {
      loaded = await module.load();
    } catch (error) {
      log.error(
        `could not load extension ${module.name}: ${error instanceof Error ? error.message : String(error)}`,
      );
      continue;
    }
    const factory = (loaded as { default?: unknown } | undefined)?.default;
    if (typeof factory !== 'function') {
      log.error(`extension ${module.name} has no default export function; skipped`);
      continue;
    }
    await host.register(module.name, factory as CanopyExtension);
  }
}
