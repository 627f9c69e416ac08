/**
 * What the console's browser tests share: a gateway on a port chosen up front (its base URL is in
 * the config, for the sign-in redirects) in front of the mock upstream, one chromium, pages that
 * accept every confirm(), the password sign-in, and the check each page gets (axe scan, screenshot,
 * no sideways scroll).
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort } from '../_process.ts';
import { startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';
import { horizontalOverflow, launchBrowser, screenshot, seriousViolations } from './browser.ts';

export interface ConsoleUser {
  email: string;
  password: string;
}

export interface ConsoleRig {
  base: string;
  mock: MockUpstream;
  gw: TestGateway;
  browser: Browser;
  /** A page in a fresh context (no cookies) that accepts confirm() before a rotation or a deletion. */
  newPage(viewport: { width: number; height: number }, options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** From the console's home through the password form to the overview. */
  signIn(page: Page, user: ConsoleUser): Promise<void>;
  go(page: Page, path: string, heading: string): Promise<void>;
  /** Waits until the page has loaded its data, then scans it, saves a screenshot and checks that it does not scroll sideways. */
  check(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** From the console's "Sign in with your gateway account" button through the password form, submitted. */
export async function submitPasswordForm(page: Page, user: ConsoleUser): Promise<void> {
  await page.getByRole('button', { name: 'Sign in with your gateway account' }).click();
  await page.waitForURL(/\/oauth\/interaction\//);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Starts the rig with `fixture`. `env` adds to the gateway's environment once the base URL is known
 * (to start an identity provider that redirects to it); screenshots are named `<screenshots><name>.png`.
 */
export async function startConsoleRig(
  fixture: string,
  options: { screenshots?: string; env?: (base: string) => Promise<Record<string, string>> } = {},
): Promise<ConsoleRig> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const mock = await startMockUpstream();
  let gw: TestGateway | undefined;
  try {
    const extra = (await options.env?.(base)) ?? {};
    gw = await startTestGateway(fixture, { PORT: String(port), GATEWAY_BASE_URL: base, MOCK_URL: `${mock.url}/v1`, ...extra });
    return rigOf(base, mock, gw, await launchBrowser(), options.screenshots ?? '');
  } catch (error) {
    // afterAll gets no rig to close: what did start is closed here.
    await gw?.close();
    await mock.close();
    throw error;
  }
}

function rigOf(base: string, mock: MockUpstream, gw: TestGateway, browser: Browser, screenshots: string): ConsoleRig {
  return {
    base,
    mock,
    gw,
    browser,
    async newPage(viewport, contextOptions = {}) {
      const context = await browser.newContext({ viewport, ...contextOptions });
      const page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      return { context, page };
    },
    async signIn(page, user) {
      await page.goto(`${base}/console/`);
      await submitPasswordForm(page, user);
      await page.waitForURL(`${base}/console/overview`);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    },
    async go(page, path, heading) {
      await page.goto(`${base}/console/${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    },
    async check(page, name) {
      await page.waitForLoadState('networkidle');
      await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
      await screenshot(page, `${screenshots}${name}`);
      expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
      expect(await horizontalOverflow(page), `sideways scroll on ${name}`).toBe(0);
    },
    async close() {
      await browser.close();
      await gw.close();
      await mock.close();
    },
  };
}
