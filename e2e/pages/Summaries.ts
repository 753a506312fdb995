// Page object of the summary features: the settings dialog, the summary dialog and the
// multi-entry selection bar. Assertions stay in the tests.
import { expect, type Locator, type Page } from '@playwright/test';

export class Summaries {
  readonly dialog: Locator;
  readonly settings: Locator;
  readonly selectionBar: Locator;
  readonly selectionCount: Locator;
  readonly text: Locator;
  readonly stream: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByTestId('dialog.summary');
    this.settings = page.getByTestId('dialog.settings');
    this.selectionBar = page.getByTestId('selection.bar');
    this.selectionCount = page.getByTestId('selection.count');
    this.text = page.getByTestId('summary.text');
    this.stream = page.getByTestId('summary.stream');
  }

  button(name: string): Locator {
    return this.page.getByTestId(`summary.${name}`);
  }

  /** Turns "Offer a branch summary when jumping" on through the settings dialog. */
  async enableSummaries(): Promise<void> {
    await this.page.getByTestId('settings.open').click();
    await expect(this.settings).toBeVisible();
    const box = this.page.getByTestId('settings.summaries');
    await box.check();
    await expect(box).toBeChecked();
    await this.page.getByTestId('settings.close').click();
    await expect(this.settings).toHaveCount(0);
  }

  /** The dialog is on this step: choice, prompt, generating or preview. */
  async expectStep(step: 'choice' | 'prompt' | 'generating' | 'preview'): Promise<void> {
    await expect(this.dialog).toHaveAttribute('data-step', step);
  }
}
