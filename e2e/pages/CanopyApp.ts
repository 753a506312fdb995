// The page object of the Canopy web app (tldraw's style): locators by test id and the few
// multi-step actions tests repeat. Assertions stay in the tests.
import { expect, type Locator, type Page } from '@playwright/test';
import type { FilterMode } from '@canopy/session-core';
import type { RunningCanopy } from '../support/server';

export type { FilterMode };

/** One outline row as the user reads it. */
export interface OutlineLine {
  id: string;
  /** Tree prefix, `• ` on the active path, `[label] `, row text: the terminal's line without the cursor. */
  line: string;
  active: boolean;
  leaf: boolean;
  selected: boolean;
}

export class CanopyApp {
  readonly sessionList: Locator;
  readonly sessionSearch: Locator;
  readonly outline: Locator;
  readonly rows: Locator;
  readonly graph: Locator;
  readonly graphNodes: Locator;
  readonly detail: Locator;
  readonly composer: Locator;
  readonly composerSend: Locator;
  readonly search: Locator;
  readonly searchCount: Locator;
  readonly searchNext: Locator;
  readonly searchPrev: Locator;
  readonly filterGroup: Locator;
  readonly position: Locator;
  readonly toasts: Locator;
  readonly connection: Locator;
  readonly themeToggle: Locator;
  readonly labelEditor: Locator;
  readonly sessionTitle: Locator;

  constructor(
    readonly page: Page,
    readonly canopy: RunningCanopy,
  ) {
    this.sessionList = page.getByTestId('session.list');
    this.sessionSearch = page.getByTestId('session.search');
    this.outline = page.getByTestId('tree.outline');
    this.rows = this.outline.getByTestId('tree.node');
    this.graph = page.getByTestId('tree.graph');
    this.graphNodes = this.graph.getByTestId('graph.node');
    this.detail = page.getByTestId('detail.panel');
    this.composer = page.getByTestId('composer.input');
    this.composerSend = page.getByTestId('composer.send');
    this.search = page.getByTestId('search.input');
    this.searchCount = page.getByTestId('search.count');
    this.searchNext = page.getByTestId('search.next');
    this.searchPrev = page.getByTestId('search.prev');
    this.filterGroup = page.getByTestId('filter.mode');
    this.position = page.getByTestId('tree.position');
    this.toasts = page.getByTestId('toast');
    this.connection = page.getByTestId('connection.state');
    this.themeToggle = page.getByTestId('theme.toggle');
    this.labelEditor = page.getByTestId('label.editor');
    this.sessionTitle = page.getByTestId('session.title');
  }

  /** Opens the URL the server printed (with its token), as a user pastes it. */
  async goto(): Promise<void> {
    await this.page.goto(this.canopy.url);
    // The first load is the slowest step on a loaded machine: allow it more than the default.
    await expect(this.sessionList).toBeVisible({ timeout: 30_000 });
  }

  /** The session browser's entry of a file (its tooltip is the file's path under the root). */
  sessionItem(fileName: string): Locator {
    return this.page.locator(`[data-testid="session.item"][title$="/${fileName}"]`);
  }

  /** Picks a session in the browser and waits for its tree. */
  async openSession(fileName: string): Promise<void> {
    // The list folds away while a session is open; ☰ brings it back.
    if (!(await this.sessionList.isVisible())) await this.page.getByTestId('sidebar.toggle').click();
    await this.sessionItem(fileName).click();
    await expect(this.sessionItem(fileName)).toHaveAttribute('aria-current', 'true');
    await expect(this.outline).toBeVisible();
    // The address bar follows the open session after a short debounce (main.tsx): until it names
    // this one, it still names the session before, and a deep link read from it would be that one's.
    const id = await this.sessionItem(fileName).getAttribute('data-session-id');
    await expect.poll(() => new URL(this.page.url()).searchParams.get('session')).toBe(id);
  }

  /** The session id in the address bar (the deep link the app keeps current). */
  async sessionIdFromUrl(): Promise<string> {
    await expect(this.page).toHaveURL(/[?&]session=/);
    return new URL(this.page.url()).searchParams.get('session')!;
  }

  row(entryId: string): Locator {
    return this.outline.locator(`[data-testid="tree.node"][data-entry-id="${entryId}"]`);
  }

  graphNode(entryId: string): Locator {
    return this.graph.locator(`[data-testid="graph.node"][data-entry-id="${entryId}"]`);
  }

  filterButton(mode: FilterMode): Locator {
    return this.page.getByTestId(`filter.${mode}`);
  }

  /** The outline rows now in the DOM, top to bottom. */
  async outlineLines(): Promise<OutlineLine[]> {
    return this.rows.evaluateAll((elements) =>
      elements
        .map((element) => {
          const part = (selector: string) => element.querySelector(selector)?.textContent ?? '';
          const label = part('.row-label');
          return {
            top: parseFloat((element as HTMLElement).style.top || '0'),
            id: element.getAttribute('data-entry-id') ?? '',
            line: part('.row-prefix') + part('.row-bullet') + (label ? `${label} ` : '') + part('.row-text'),
            active: element.hasAttribute('data-active'),
            leaf: element.hasAttribute('data-leaf'),
            selected: element.getAttribute('aria-selected') === 'true',
          };
        })
        .sort((a, b) => a.top - b.top)
        .map(({ id, line, active, leaf, selected }) => ({ id, line, active, leaf, selected })),
    );
  }

  async outlineIds(): Promise<string[]> {
    return (await this.outlineLines()).map((row) => row.id);
  }

  /** The id of the selected row, from the outline. */
  selectedRow(): Locator {
    return this.outline.locator('[data-testid="tree.node"][aria-selected="true"]');
  }

  /** Focuses the outline the way a user does before typing keys: a click on an empty part of it. */
  async focusTree(): Promise<void> {
    await this.outline.focus();
  }

  /** The toast with exactly this text. */
  toast(text: string | RegExp): Locator {
    return this.toasts.filter({ hasText: text });
  }
}
