/**
 * Browser helpers for the console tests: Debian's chromium driven by playwright-core (no browser
 * download), an axe-core scan of the page, and a screenshot per page under test-artifacts/console
 * for a reviewer to look at.
 */
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = 'test-artifacts/console';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export async function launchBrowser(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core in the page (injected through the devtools protocol, so the page's CSP is left as
 * it is) and returns the serious and critical violations, as `id: help (targets)` lines.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(options: object): Promise<{ violations: AxeViolation[] }> } }).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Saves a full-page screenshot as test-artifacts/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/**
 * Records every text drawn on a canvas (uPlot draws its axis labels with fillText) in
 * `window.__canvasText`, from the next navigation on: `canvasText(page)` reads it,
 * `forgetCanvasText(page)` empties it.
 */
export async function recordCanvasText(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const drawn: string[] = [];
    (window as unknown as { __canvasText: string[] }).__canvasText = drawn;
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, maxWidth?: number) {
      drawn.push(String(text));
      return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth);
    };
  });
}

export function canvasText(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(window as unknown as { __canvasText: string[] }).__canvasText]);
}

export async function forgetCanvasText(page: Page): Promise<void> {
  await page.evaluate(() => void (window as unknown as { __canvasText: string[] }).__canvasText.splice(0));
}

/** How far the page scrolls sideways (0 when nothing sticks out of the viewport). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
