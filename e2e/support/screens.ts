// The screens every screenshot spec looks at (the sizes and themes docs/web-app.md is checked at),
// and one way to take a shot: kept in the test's output, copied to e2e/artifacts/ux for a person to
// look through, and attached to the report.
import type { Page, TestInfo } from '@playwright/test';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './server';

const artifacts = join(repoRoot, 'e2e', 'artifacts', 'ux');

export interface Screen {
  viewport: { width: number; height: number };
  colorScheme: 'light' | 'dark';
  /** `1280x720-light`: names the describe block and the shots. */
  tag: string;
}

/** 1280×720 and 1920×1080, each in the light and the dark theme. */
export const SCREENS: readonly Screen[] = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
].flatMap((viewport) =>
  (['light', 'dark'] as const).map((colorScheme) => ({
    viewport,
    colorScheme,
    tag: `${viewport.width}x${viewport.height}-${colorScheme}`,
  })),
);

/** Takes `<prefix><tag>-<name>.png` of the page as it is. */
export function shooter(page: Page, testInfo: TestInfo, prefix: string, tag: string) {
  mkdirSync(artifacts, { recursive: true });
  return async (name: string): Promise<void> => {
    const file = `${prefix}${tag}-${name}.png`;
    const path = testInfo.outputPath(file);
    await page.screenshot({ path });
    copyFileSync(path, join(artifacts, file));
    await testInfo.attach(name, { path, contentType: 'image/png' });
  };
}
