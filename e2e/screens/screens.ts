import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, expect, type Page } from '@playwright/test';

/** The folder screenshots go to (playwright.screens.config.ts sets SCREENS_DIR). */
export const SCREENS = path.resolve(process.env.SCREENS_DIR || 'test-results/screens');
fs.mkdirSync(SCREENS, { recursive: true });

export const THEMES = ['light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** The path of the screenshot `name` (`SCREENS/<name>.png`). */
export function shot(name: string): string {
  return path.join(SCREENS, `${name}.png`);
}

/** A page in `theme` (the app's own setting, as the toggle stores it), `width` px wide. */
export async function themedPage(
  browser: Browser,
  theme: Theme,
  width = 1440,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 } });
  await context.addInitScript((t) => localStorage.setItem('toolscope-theme', t), theme);
  return { context, page: await context.newPage() };
}

/**
 * Screenshots `page` as it is, in the browser's light and then dark colour scheme (the app follows
 * it unless a theme was chosen): `SCREENS/<name>-light.png` and `-dark.png`.
 */
export async function shotBothSchemes(page: Page, name: string) {
  for (const scheme of THEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    await page.screenshot({ path: shot(`${name}-${scheme}`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
