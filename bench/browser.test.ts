// The benchmark's open timing (`shown` in browser.ts): the first animation frame that shows an
// element, seen by a check in the page itself. Playwright's `waitForSelector`, which timed the opens
// before, answered at its next poll (0, 20, 50, 100, 100 ms apart, then every 500 ms): an element
// drawn between two polls was counted up to half a second late.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser, shown } from './browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** A page that records the start of every animation frame and adds `.late` in its 20th. */
const LATE_ELEMENT_PAGE = `<body><script>
  window.frameTimes = [];
  const tick = () => {
    frameTimes.push(performance.now());
    // Frame 20 (a third of a second at 60 Hz) falls between two of Playwright's polls (270, 770 ms).
    if (frameTimes.length === 20) {
      const late = document.createElement('div');
      late.className = 'late';
      document.body.append(late);
      window.insertedAt = performance.now();
    }
    if (frameTimes.length < 300) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
</script></body>`;

describe('the open timing', () => {
  test('answers in the first frame that shows the element, with that frame’s time in the page', async () => {
    const page = await browser.newPage();
    try {
      await page.setContent(LATE_ELEMENT_PAGE);
      const seenAt = await shown(page, '.late', 60_000);
      const { insertedAt, frameTimes } = await page.evaluate(() => {
        const recorded = window as unknown as { insertedAt: number; frameTimes: number[] };
        return { insertedAt: recorded.insertedAt, frameTimes: recorded.frameTimes };
      });
      expect(seenAt).toBeGreaterThanOrEqual(insertedAt);
      // Frames begun between the insertion and the answer: none, or the one that answered.
      expect(frameTimes.filter((time) => time > insertedAt && time < seenAt).length).toBeLessThanOrEqual(1);
    } finally {
      await page.close();
    }
  });

  test('fails with a clear error when the element never shows', async () => {
    const page = await browser.newPage();
    try {
      await page.setContent('<body></body>');
      await expect(shown(page, '.never', 50)).rejects.toThrow('.never not seen within 50 ms');
    } finally {
      await page.close();
    }
  });
});
