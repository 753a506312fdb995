// The graph pane as a user sees it: its drawing box, the cards inside it, the minimap and the
// controls. Geometry helpers answer "can the user see this node" (inside the drawing and not
// under the minimap). Assertions stay in the tests.
import { expect, type Locator, type Page } from '@playwright/test';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && a.x + a.width > b.x && a.y < b.y + b.height && a.y + a.height > b.y;
}

export function inside(inner: Box, outer: Box): boolean {
  return (
    inner.x >= outer.x - 0.5 &&
    inner.y >= outer.y - 0.5 &&
    inner.x + inner.width <= outer.x + outer.width + 0.5 &&
    inner.y + inner.height <= outer.y + outer.height + 0.5
  );
}

export class GraphPane {
  readonly view: Locator;
  readonly nodes: Locator;
  readonly minimap: Locator;
  readonly fitButton: Locator;
  readonly followButton: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('tree.graph');
    this.nodes = this.view.getByTestId('graph.node');
    this.minimap = page.getByTestId('graph.minimap');
    this.fitButton = page.getByTestId('graph.fit');
    this.followButton = page.getByTestId('graph.follow-leaf');
  }

  node(entryId: string): Locator {
    return this.view.locator(`[data-testid="graph.node"][data-entry-id="${entryId}"]`);
  }

  async box(): Promise<Box> {
    const box = await this.view.boundingBox();
    if (!box) throw new Error('the graph is not on screen');
    return box;
  }

  /**
   * True when the node's card is drawn wholly inside the drawing and not under the minimap: what
   * "the user can see it" means. A node off screen has no card at all.
   */
  async canSee(entryId: string): Promise<boolean> {
    const card = this.node(entryId);
    if ((await card.count()) === 0) return false;
    const box = await card.boundingBox();
    if (!box || !inside(box, await this.box())) return false;
    if ((await this.minimap.count()) === 0) return true;
    const map = await this.minimap.boundingBox();
    return !map || !overlaps(box, map);
  }

  /**
   * Drags the drawing by (dx, dy), as a user pans with the mouse. The drag starts just inside the
   * drawing's top-left corner (the fit margin keeps cards away from it): a drag on a card does not pan.
   */
  async pan(dx: number, dy: number): Promise<void> {
    const box = await this.box();
    const x = box.x + 12;
    const y = box.y + 12;
    await this.page.mouse.move(x, y);
    await this.page.mouse.down();
    await this.page.mouse.move(x + dx / 2, y + dy / 2, { steps: 4 });
    await this.page.mouse.move(x + dx, y + dy, { steps: 4 });
    await this.page.mouse.up();
  }

  /** Waits until every id is visible to the user (see canSee). */
  async expectAllSeen(ids: readonly string[]): Promise<void> {
    for (const id of ids)
      await expect.poll(() => this.canSee(id), { message: `node ${id} in view` }).toBe(true);
  }
}
