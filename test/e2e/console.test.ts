/**
 * The web console end to end in a real browser (Debian's chromium through playwright-core): sign in
 * with a gateway account and through the company SSO (a second oidc-provider started here), create
 * a key and call with it through the openai SDK, find the call in the logs and the chart, change a
 * setting, rotate a key, enrol TOTP, sign out (tokens revoked), a member who has no admin pages,
 * and read-only mode. Every page gets an axe-core scan (no serious violation) and a screenshot in
 * test-artifacts/console/.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DEMO_KEY, MASTER_KEY, type TestGateway } from '../_setup.ts';
import { canvasText, forgetCanvasText, horizontalOverflow, recordCanvasText, screenshot, seriousViolations } from '../console/browser.ts';
import { startConsoleRig, type ConsoleRig } from '../console/harness.ts';
import { startIdp, type TestIdp } from '../console/idp.ts';
import type { SecurityService } from '../../src/features/security/service.ts';

const ROOT = { email: 'root@example.com', password: 'admin pass phrase' };
const ALICE = { email: 'alice@example.com', password: 'correct horse battery' };
const WIDE = { width: 1280, height: 860 };
/** Half of a 1366-pixel laptop screen. */
const HALF = { width: 683, height: 860 };
const PHONE = { width: 390, height: 844 };
let totpSecret = '';
/** The admin's authenticator code for the time step of `timestamp`. */
const totpAt = (timestamp: number) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(totpSecret) }).generate({ timestamp });
const security = () => gw.gateway.runtime.services.security as SecurityService;
/** An access token of the page's console session, as the console itself asks for one. */
const consoleToken = (page: Page) =>
  page.evaluate(() => fetch('/console/session/token', { method: 'POST', headers: { 'x-gateway-console': '1' } }).then(async (r) => (await r.json()).access_token as string));

let rig: ConsoleRig;
let idp: TestIdp;
let gw: TestGateway;
let base: string;
const cspErrors: string[] = [];

beforeAll(async () => {
  rig = await startConsoleRig('console.yaml', {
    env: async (consoleBase) => {
      idp = await startIdp({
        redirectUri: `${consoleBase}/console/sso/callback`,
        users: { carol: { email: 'carol@corp.example', name: 'Carol', gateway_role: 'operator', team: 'default' } },
      });
      return { SSO_ISSUER: idp.issuer, SSO_SECRET: idp.clientSecret };
    },
  });
  ({ gw, base } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.close();
  await idp?.close();
});

async function newPage(viewport = WIDE): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await rig.newPage(viewport);
  opened.page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
  });
  return opened;
}

const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${base}/api/v1`, maxRetries: 0 });
const chat = (apiKey: string) => sdk(apiKey).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello console' }] });

describe('console static files', () => {
  it('serves the page with a strict CSP and no cache, hashed assets cached for a year, under 250 KB gzipped', async () => {
    const page = await fetch(`${base}/console/keys`, { headers: { 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let gzipped = 0;
    for (const asset of assets) {
      const response = await fetch(`${base}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      gzipped += gzipSync(Buffer.from(await response.arrayBuffer())).length;
    }
    expect(gzipped).toBeLessThan(250 * 1024);
    const missing = await fetch(`${base}/console/assets/index-00000000.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.type).toBe('not_found_error');
  });
});

// Several pages per test, each scanned by axe: generous time on a loaded machine.
describe('the console in a browser', { timeout: 120_000 }, () => {
  let admin: Page;
  let createdKey = '';

  it('signs an admin in through the gateway login (no consent page) and shows the overview', async () => {
    ({ page: admin } = await newPage());
    await admin.goto(`${base}/console/`);
    await admin.getByRole('button', { name: 'Sign in with Acme SSO' }).waitFor();
    await rig.check(admin, '01-sign-in');
    await rig.signIn(admin, ROOT);
    await expect.poll(() => admin.getByRole('navigation', { name: 'Console pages' }).getByRole('link').allTextContents()).toEqual([
      'Overview', 'API keys', 'Logs', 'Playground', 'Providers', 'Models', 'Groups', 'Users', 'Guardrails', 'Settings', 'Security',
    ]);
  });

  it('creates a key, shows it once, and the key works with the openai SDK', async () => {
    await rig.go(admin, 'keys', 'API keys');
    await admin.getByRole('button', { name: 'Create key' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Create an API key' });
    // No name: refused beside the field before any call; the API refuses it too (400 naming name).
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => dialog.locator('.field-error').allTextContents()).toEqual(['Enter a name for the key.']);
    expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    for (const [method, path, body] of [['POST', '/v1/api-keys', { name: '', account_id: 'alice' }], ['PUT', '/v1/api-keys/alice-key', { name: '' }]] as const) {
      const refused = await api(gw, method, path, body);
      expect([refused.status, refused.body.error.param]).toEqual([400, 'name']);
    }
    await dialog.getByLabel('Name').fill('ci key');
    await dialog.getByLabel('Rate limit (requests per minute)').fill('lots');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    // The API's message beside the field it names.
    await expect.poll(() => dialog.locator('.field-error').allTextContents()).toEqual([expect.stringContaining('rate_limit')]);
    await dialog.getByLabel('Rate limit (requests per minute)').fill('120');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const reveal = admin.getByRole('dialog', { name: 'Key "ci key" created' });
    createdKey = await reveal.getByLabel('Your new API key').inputValue();
    expect(createdKey).toMatch(/^sk-bf-/);
    await screenshot(admin, '03-key-created');
    await reveal.getByRole('button', { name: 'Done' }).click();
    const completion = await chat(createdKey);
    expect(completion.choices[0]!.message.content).toBeTruthy();
    // A key held to fewer scopes (minted by an OAuth app's token) says which.
    const scoped = await api(gw, 'POST', '/v1/api-keys', { name: 'app key', scopes: ['read:api'] });
    expect(scoped.status).toBe(201);
    await admin.reload();
    await admin.getByRole('row', { name: /ci key/ }).waitFor();
    expect(await admin.getByRole('row', { name: /app key/ }).textContent()).toContain('read:api');
    await rig.check(admin, '02-keys');
    expect((await api(gw, 'DELETE', `/v1/api-keys/${scoped.body.id}`)).status).toBe(200);
    await admin.getByRole('button', { name: 'Edit ci key' }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit ci key' });
    await edit.getByLabel('Name').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.locator('.field-error').allTextContents()).toEqual(['Enter a name for the key.']);
    await edit.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows the call in the logs, with its detail', async () => {
    await rig.go(admin, 'logs', 'Logs');
    await expect
      .poll(async () => {
        await admin.getByRole('button', { name: 'Apply filters' }).click();
        return admin.getByRole('row', { name: /ci key/ }).count();
      }, { timeout: 10_000 })
      .toBe(1);
    await admin.getByLabel('Status').selectOption('error');
    await admin.getByRole('button', { name: 'Apply filters' }).click();
    await admin.getByText('No calls match.').waitFor();
    await admin.getByRole('button', { name: 'Clear' }).click();
    await admin.getByRole('row', { name: /ci key/ }).waitFor();
    await rig.check(admin, '04-logs');
    await admin.getByRole('row', { name: /ci key/ }).getByRole('link').click();
    await admin.getByRole('heading', { level: 1, name: 'Log entry' }).waitFor();
    await admin.getByRole('heading', { name: 'Upstream attempts' }).waitFor();
    await expect.poll(() => admin.locator('pre.code').first().textContent()).toContain('Hello console');
    await rig.check(admin, '05-log-detail');
  });

  it('keeps the log filters in the URL: Back, the way back and a reload show the same list', async () => {
    await rig.go(admin, 'logs', 'Logs');
    await admin.getByLabel('From').fill('2000-01-01T00:00');
    await admin.getByLabel('Model').selectOption('gpt-4o-mini');
    await admin.getByLabel('Status').selectOption('success');
    await admin.getByLabel('Per page').selectOption('10');
    await admin.getByRole('button', { name: 'Apply filters' }).click();
    await admin.waitForURL(/status=success/);
    const list = admin.url();
    const query = new URL(list).searchParams;
    expect([query.get('model'), query.get('status'), query.get('page_size')]).toEqual(['gpt-4o-mini', 'success', '10']);
    expect(query.get('start_time')).toMatch(/^(1999-12-31|2000-01-01)T\d\d:\d\d:00\.000Z$/);
    const form = () => Promise.all(['From', 'Model', 'Status', 'Per page'].map((label) => admin.getByLabel(label).inputValue()));
    const filtered = ['2000-01-01T00:00', 'gpt-4o-mini', 'success', '10'];
    const row = admin.getByRole('row', { name: /ci key/ });
    await row.getByRole('link').click();
    await admin.getByRole('heading', { level: 1, name: 'Log entry' }).waitFor();
    await admin.goBack();
    await row.waitFor();
    expect([admin.url(), ...(await form())]).toEqual([list, ...filtered]);
    await row.getByRole('link').click();
    await admin.getByRole('link', { name: '← Back to the filtered logs' }).click();
    await row.waitFor();
    expect([admin.url(), ...(await form())]).toEqual([list, ...filtered]);
    await admin.reload();
    await row.waitFor();
    expect(await form()).toEqual(filtered);
    await admin.getByLabel('Status').selectOption('error');
    await admin.getByRole('button', { name: 'Apply filters' }).click();
    await admin.getByText('No calls match.').waitFor();
    await admin.goBack();
    await row.waitFor();
    expect(await form()).toEqual(filtered);
  });

  it('counts the call in the overview and its chart', async () => {
    await rig.go(admin, 'overview', 'Overview');
    const today = admin.getByRole('region', { name: 'Today' });
    await expect.poll(() => today.locator('dd').first().textContent()).toBe('1');
    await admin.locator('.chart canvas').first().waitFor();
    const usage = admin.getByRole('figure', { name: 'Usage per day' });
    await usage.getByText('Figures of this chart').click();
    const rows = await usage.locator('tbody tr').allTextContents();
    expect(rows.filter((row) => /\d$/.test(row) && !row.endsWith('00'))).not.toHaveLength(0);
    expect(await usage.locator('tbody tr').last().locator('td').last().textContent()).toBe('1');
    await usage.getByText('Figures of this chart').click();
    await admin.getByRole('region', { name: 'Share of tokens by model' }).getByRole('row', { name: /gpt-4o-mini/ }).waitFor();
    await rig.check(admin, '06-overview');
  });

  it('draws a one-day and a two-day range on an axis of those days', async () => {
    await recordCanvasText(admin);
    await rig.go(admin, 'overview', 'Overview');
    await admin.locator('.chart canvas').first().waitFor();
    await admin.waitForLoadState('networkidle');
    const today = await admin.locator('#range-end').inputValue();
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const label = (day: string) => `${Number(day.slice(5, 7))}/${Number(day.slice(8, 10))}`;
    for (const start of [today, yesterday]) {
      await forgetCanvasText(admin);
      await admin.locator('#range-start').fill(start);
      await admin.getByRole('button', { name: 'Show' }).click();
      // The range's cards are a region named by their heading (its id is a valid one).
      await admin.getByRole('region', { name: `${start} to ${today}` }).waitFor();
      // x labels: days ("11/26"), the year under the first, never hours nor other days or years.
      const xLabels = async () => [...new Set((await canvasText(admin)).filter((text) => /\/|^\d{4}$|:|am$|pm$/i.test(text)))].sort();
      const expected = [...new Set([label(start), label(today), start.slice(0, 4), today.slice(0, 4)])].sort();
      await expect.poll(xLabels).toEqual(expected);
    }
    await screenshot(admin, '06-overview-two-days');
  });

  it('exports the statistics as CSV from the page', async () => {
    const download = admin.waitForEvent('download');
    await admin.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = await readFile((await file.path())!, 'utf8');
    expect(text.split('\n')[0]).toContain('request_count');
  });

  it('rotates a key: the old one stops working, the new one works', async () => {
    await rig.go(admin, 'keys', 'API keys');
    await admin.getByRole('button', { name: 'Rotate ci key' }).click();
    const reveal = admin.getByRole('dialog', { name: 'New key for ci key' });
    const rotated = await reveal.getByLabel('Your new API key').inputValue();
    expect(rotated).not.toBe(createdKey);
    await reveal.getByRole('button', { name: 'Done' }).click();
    await expect(chat(createdKey)).rejects.toMatchObject({ status: 401 });
    expect((await chat(rotated)).choices[0]!.message.content).toBeTruthy();
    await admin.getByRole('button', { name: 'Deactivate ci key' }).click();
    await admin.getByRole('button', { name: 'Activate ci key', exact: true }).waitFor();
    await expect(chat(rotated)).rejects.toMatchObject({ status: 401 });
  });

  it('changes a setting, with a refused value shown beside its field', async () => {
    await rig.go(admin, 'settings', 'Settings');
    await admin.getByLabel('Time zone').fill('Mars/Olympus');
    await admin.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => admin.locator('.field-error').allTextContents()).toEqual([expect.stringMatching(/timezone/i)]);
    await admin.getByLabel('Time zone').fill('Europe/Berlin');
    await admin.getByLabel('Stream by default').check();
    await admin.getByRole('button', { name: 'Save settings' }).click();
    await admin.getByText('Settings saved.').waitFor();
    await admin.reload();
    await expect.poll(() => admin.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');
    expect(await admin.getByLabel('Stream by default').isChecked()).toBe(true);
    await rig.check(admin, '07-settings');
  });

  it('lists, creates and edits the admin resources, with validation beside the field', async () => {
    for (const [path, heading] of [['providers', 'Providers'], ['models', 'Models'], ['users', 'Users']] as const) {
      await rig.go(admin, path, heading);
      await admin.getByRole('table').waitFor();
      await rig.check(admin, `08-${path}`);
    }
    await rig.go(admin, 'groups', 'Groups');
    await admin.getByRole('meter', { name: 'Quota of Default' }).waitFor();
    await admin.getByRole('button', { name: 'Create group' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Create a group' });
    await dialog.getByLabel('Name').fill('Research');
    await dialog.getByLabel('Priority').fill('high');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await expect.poll(() => dialog.locator('.field-error').allTextContents()).toEqual([expect.stringContaining('priority')]);
    await screenshot(admin, '09-group-validation');
    await dialog.getByLabel('Priority').fill('3');
    await dialog.getByLabel('Quota (tokens)').fill('5000');
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await admin.getByRole('row', { name: /Research/ }).waitFor();
    await admin.getByRole('button', { name: 'Edit research' }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit group research' });
    await edit.getByLabel('Description').fill('The lab');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    const group = await api(gw, 'GET', '/v1/admin/groups/research');
    expect(group.body).toMatchObject({ name: 'Research', priority: 3, quota_limit: 5000, description: 'The lab' });
    await rig.check(admin, '08-groups');
  });

  it("edits a model's fallbacks, with the API's refusal beside the field, and lists them", async () => {
    expect((await api(gw, 'POST', '/v1/admin/models', { id: 'spare', provider: 'mock', upstream_model: 'gpt-4o-mini' })).status).toBe(201);
    await rig.go(admin, 'models', 'Models');
    await admin.getByRole('button', { name: 'Edit gpt-4o-mini' }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit model gpt-4o-mini' });
    await edit.getByLabel('Fallbacks').fill('ghost');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.locator('.field-error').allTextContents()).toEqual([expect.stringContaining('"ghost"')]);
    await edit.getByLabel('Fallbacks').fill('spare');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await api(gw, 'GET', '/v1/admin/models/gpt-4o-mini')).body.fallbacks).toEqual(['spare']);
    await admin.reload();
    await admin.getByRole('row', { name: /GPT-4o mini/ }).getByRole('cell', { name: 'spare', exact: true }).waitFor();
    await rig.check(admin, '08-models-fallbacks');
    expect((await api(gw, 'PUT', '/v1/admin/models/gpt-4o-mini', { fallbacks: null })).status).toBe(200);
    expect((await api(gw, 'DELETE', '/v1/admin/models/spare')).status).toBe(200);
  });

  it('scrolls no page sideways at 390 px, however wide its table', async () => {
    await admin.setViewportSize({ width: 390, height: 844 });
    const pages = [['overview', 'Overview'], ['keys', 'API keys'], ['logs', 'Logs'], ['providers', 'Providers'], ['models', 'Models'], ['groups', 'Groups'], ['users', 'Users']] as const;
    for (const [path, heading] of pages) {
      await rig.go(admin, path, heading);
      await admin.getByRole('table').first().waitFor();
      await expect.poll(() => admin.getByText('Loading…').count()).toBe(0);
      await screenshot(admin, `16-narrow-${path}`);
      expect(await horizontalOverflow(admin), path).toBe(0);
    }
    await admin.setViewportSize(WIDE);
  });

  it('enrols TOTP with a QR code', async () => {
    await rig.go(admin, 'security', 'Security');
    await admin.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await admin.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
    await rig.check(admin, '10-security-totp');
    totpSecret = (await admin.locator('.totp code').textContent())!.trim();
    const secret = totpSecret;
    const code = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate();
    await admin.getByLabel('Code').fill(code);
    await admin.getByRole('button', { name: 'Verify' }).click();
    await admin.getByText('Two-factor authentication is on.').waitFor();
  });

  it('styles the sign-in and two-factor pages like the console, with no sideways scroll on a phone', async () => {
    const { page, context } = await newPage(PHONE);
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Sign in with your gateway account' }).click();
    await page.waitForURL(/\/oauth\/interaction\//);
    await rig.check(page, '17-sign-in-form-phone');
    // The form's look is the console's: its panel and primary button colours.
    expect(await page.locator('main').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 255, 255)');
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(31, 95, 201)');
    await page.getByLabel('Email').fill(ROOT.email);
    await page.getByLabel('Password').fill(ROOT.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor();
    await rig.check(page, '18-second-factor-phone');
    // The enrolment used this time step: the next one signs in.
    security().now = () => Date.now() + 30_000;
    await page.getByLabel('Authentication code').fill(totpAt(Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await rig.check(page, '19-overview-phone');
    await context.close();
  });

  it('keeps the session across tabs and reloads, in an HttpOnly SameSite=Strict cookie and no storage a script reads', async () => {
    const second = await admin.context().newPage();
    await second.goto(`${base}/console/keys`);
    await second.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await second.reload();
    await second.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    const cookies = await admin.context().cookies(`${base}/console/`);
    const session = cookies.find((c) => c.name === 'gw_console_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    expect(await second.evaluate(() => document.cookie)).not.toContain('gw_console_session');
    const stored = await second.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toMatch(/token|[A-Za-z0-9_-]{43}/i);
    // The cookie alone mints no token: the console's header is needed, and a foreign origin is refused.
    const bare = await fetch(`${base}/console/session/token`, { method: 'POST', headers: { cookie: `gw_console_session=${session.value}` } });
    expect([bare.status, (await bare.json()).error.code]).toEqual([403, 'console_only']);
    const foreign = await fetch(`${base}/console/session/token`, { method: 'POST', headers: { cookie: `gw_console_session=${session.value}`, 'x-gateway-console': '1', origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const minted = await fetch(`${base}/console/session/token`, { method: 'POST', headers: { cookie: `gw_console_session=${session.value}`, 'x-gateway-console': '1' } });
    expect(minted.status).toBe(200);
    expect((await api(gw, 'GET', '/v1/api-keys', undefined, (await minted.json()).access_token)).status).toBe(200);
    await second.close();
  });

  it('says so when the session ends under a page, and keeps the unsaved edit through a new sign-in', async () => {
    await rig.go(admin, 'settings', 'Settings');
    await admin.getByLabel('Time zone').fill('Asia/Tokyo');
    // Signed out in another tab: this one's token and session are revoked.
    const other = await admin.context().newPage();
    await other.goto(`${base}/console/overview`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('button', { name: 'Sign in with your gateway account' }).waitFor();
    const ended = admin.getByRole('dialog', { name: 'You are signed out' });
    await ended.waitFor();
    await screenshot(admin, '20-session-ended');
    expect(await seriousViolations(admin)).toEqual([]);
    // Sign in again in the other tab (the second factor's next step); this tab picks the session up.
    await other.getByRole('button', { name: 'Sign in with your gateway account' }).click();
    await other.getByLabel('Email').fill(ROOT.email);
    await other.getByLabel('Password').fill(ROOT.password);
    await other.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Enrolling TOTP (above) distrusted the devices trusted before it: the second factor is asked.
    await other.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor();
    security().now = () => Date.now() + 60_000;
    await other.getByLabel('Authentication code').fill(totpAt(Date.now() + 60_000));
    await other.getByRole('button', { name: 'Verify' }).click();
    await other.waitForURL(`${base}/console/overview`);
    await ended.waitFor({ state: 'detached' });
    expect(await admin.getByLabel('Time zone').inputValue()).toBe('Asia/Tokyo');
    await admin.getByRole('button', { name: 'Save settings' }).click();
    await admin.getByText('Settings saved.').waitFor();
    expect((await api(gw, 'GET', '/v1/admin/users/root/settings')).body.account.timezone).toBe('Asia/Tokyo');
    await other.close();
  });

  it('forgets a trusted device, toggles login alerts and turns two-factor off with a code', async () => {
    const rootStatus = async () => (await api(gw, 'GET', '/v1/security/status', undefined, await consoleToken(admin))).body;
    await rig.go(admin, 'security', 'Security');
    const devices = admin.getByRole('region', { name: 'Trusted devices' });
    await devices.getByRole('row').nth(1).waitFor();
    const before = (await rootStatus()).trusted_devices.length;
    expect(before).toBeGreaterThan(0);
    await rig.check(admin, '21-security');
    await devices.getByRole('button', { name: /^Forget / }).first().click();
    await expect.poll(async () => (await rootStatus()).trusted_devices.length).toBe(before - 1);
    // The page reloads its status after the forget: the next click waits for it, or the reload's
    // answer could land after the click and show the box as it was.
    await expect.poll(() => devices.getByRole('button', { name: /^Forget / }).count()).toBe(before - 1);
    await admin.getByLabel('Email me when someone signs in from a new device or address').check();
    await expect.poll(async () => (await rootStatus()).login_alerts_enabled).toBe(true);
    await admin.getByLabel('Code to turn it off').fill('000000');
    await admin.getByRole('button', { name: 'Turn off two-factor' }).click();
    await admin.getByText('That code is not right').waitFor();
    expect((await rootStatus()).two_factor_enabled).toBe(true);
    security().now = () => Date.now() + 90_000;
    await admin.getByLabel('Code to turn it off').fill(totpAt(Date.now() + 90_000));
    await admin.getByRole('button', { name: 'Turn off two-factor' }).click();
    await admin.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
    expect((await rootStatus()).two_factor_enabled).toBe(false);
    security().now = () => Date.now();
  });

  it("lets an admin reset a member's second factor from the users page", async () => {
    const enrol = await api(gw, 'POST', '/v1/security/send-code', { type: 'totp' }, DEMO_KEY);
    const code = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(enrol.body.secret) }).generate();
    expect((await api(gw, 'POST', '/v1/security/verify', { type: 'totp', code }, DEMO_KEY)).body.verified).toBe(true);
    await rig.go(admin, 'users', 'Users');
    await admin.getByRole('button', { name: 'Reset 2FA alice' }).click();
    await admin.getByText('Two-factor authentication is off for alice.').waitFor();
    expect((await api(gw, 'GET', '/v1/security/status', undefined, DEMO_KEY)).body.two_factor_enabled).toBe(false);
  });

  it('switches to dark mode and remembers it; follows the system when asked to', async () => {
    await rig.go(admin, 'keys', 'API keys');
    await admin.getByLabel('Theme').selectOption('dark');
    const background = () => admin.evaluate(() => getComputedStyle(document.body.parentElement!).backgroundColor);
    expect(await background()).toBe('rgb(17, 21, 29)');
    await admin.reload();
    await admin.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(await background()).toBe('rgb(17, 21, 29)');
    await rig.check(admin, '22-keys-dark');
    await admin.setViewportSize({ width: 390, height: 844 });
    await rig.check(admin, '23-keys-dark-phone');
    // The row's actions stay on screen at the table's right edge.
    const rotate = admin.getByRole('button', { name: /^Rotate / }).first();
    const box = (await rotate.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await admin.setViewportSize(WIDE);
    await admin.getByLabel('Theme').selectOption('system');
    const page = await admin.context().newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${base}/console/overview`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(17, 21, 29)');
    await page.close();
  });

  it('opens a dialog on its first field', async () => {
    await rig.go(admin, 'keys', 'API keys');
    await admin.getByRole('button', { name: 'Create key' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Create an API key' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Name').evaluate((el) => el === document.activeElement)).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('signs out and revokes the tokens and the session', async () => {
    const token = await consoleToken(admin);
    expect((await api(gw, 'GET', '/v1/api-keys', undefined, token)).status).toBe(200);
    await admin.getByRole('button', { name: 'Sign out' }).click();
    await admin.getByRole('button', { name: 'Sign in with your gateway account' }).waitFor();
    await expect.poll(async () => (await api(gw, 'GET', '/v1/api-keys', undefined, token)).status).toBe(401);
    // The session is over for every tab: a new one asks for the password.
    const again = await admin.evaluate(() => fetch('/console/session/token', { method: 'POST', headers: { 'x-gateway-console': '1' } }).then((r) => r.status));
    expect(again).toBe(401);
    expect(await admin.context().cookies(`${base}/console/`)).not.toContainEqual(expect.objectContaining({ name: 'gw_console_session' }));
    await admin.context().close();
  });

  it('gives a member their own keys, logs and usage, and no admin pages at all', async () => {
    // alice's key, through the Messages API as a coding agent calls it: her log shows the interface.
    const messages = await fetch(`${base}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Hello from an agent' }] }),
    });
    expect((await messages.json()).type).toBe('message');
    const { page, context } = await newPage(HALF);
    await rig.signIn(page, ALICE);
    await expect.poll(() => page.getByRole('navigation', { name: 'Console pages' }).getByRole('link').allTextContents()).toEqual([
      'Overview', 'API keys', 'Logs', 'Playground', 'Settings', 'Security',
    ]);
    await expect.poll(() => page.getByRole('region', { name: 'Today' }).locator('dd').first().textContent()).toBe('1');
    await rig.check(page, '11-member-overview-half-width');
    await rig.go(page, 'keys', 'API keys');
    await page.getByRole('row', { name: /Alice's key/ }).waitFor();
    expect(await page.getByRole('row', { name: /ci key/ }).count()).toBe(0);
    await rig.check(page, '12-member-keys-half-width');
    await rig.go(page, 'logs', 'Logs');
    await page.getByRole('row', { name: /Alice's key/ }).waitFor();
    expect(await page.getByRole('row', { name: /ci key/ }).count()).toBe(0);
    await rig.check(page, '13-member-logs-half-width');
    await page.getByRole('row', { name: /Alice's key/ }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Log entry' }).waitFor();
    await expect.poll(() => page.locator('dt:text-is("Interface") + dd').textContent()).toBe('Anthropic Messages');
    expect(await page.locator('pre.code').last().textContent()).toContain('"type": "message"');
    for (const path of ['users', 'providers', 'models', 'groups']) {
      await rig.go(page, path, 'Page not found');
    }
    await context.close();
  });

  it('signs in through the company SSO, creating the account with the mapped role and group', async () => {
    const { page, context } = await newPage();
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Sign in with Acme SSO' }).click();
    await page.waitForURL(`${idp.issuer}/**`);
    await page.locator('input[name="login"]').fill('carol');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').first().click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${base}/console/overview`);
    await page.getByText('carol@corp.example').waitFor();
    // The `operator` role claim makes an admin: the admin pages are there.
    await page.getByRole('link', { name: 'Users' }).waitFor();
    const users = await api(gw, 'GET', '/v1/admin/users');
    expect(users.body.data).toContainEqual(expect.objectContaining({ email: 'carol@corp.example', role: 'admin', group: 'default' }));
    await rig.check(page, '14-sso-overview');
    await context.close();
  });

  it('says why when management writes are off, and offers no write', async () => {
    const text = await readFile(gw.configFile, 'utf8');
    await writeFile(gw.configFile, `${text}\nmanagement:\n  write_back: false\n`);
    expect((await gw.gateway.config.reload()).ok).toBe(true);
    const { page, context } = await newPage();
    await rig.signIn(page, ALICE);
    await rig.go(page, 'keys', 'API keys');
    await page.getByText('Read-only mode.').waitFor();
    await expect.poll(() => page.getByRole('alert').or(page.getByRole('status')).filter({ hasText: 'Read-only' }).textContent()).toContain('write_back is false');
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    await rig.check(page, '15-read-only');
    await context.close();
  });

  it('ran every page under its CSP without a violation', () => {
    expect(cspErrors).toEqual([]);
  });
});

describe('what the console relies on, without a browser', () => {
  it('answers a member their own logs on /v1/logs, and admin logs stay admin-only', async () => {
    const own = await api(gw, 'GET', '/v1/logs?page_size=100', undefined, DEMO_KEY);
    expect(own.status).toBe(200);
    expect(own.body.data.length).toBeGreaterThan(0);
    expect(own.body.data.every((log: { api_key_id: string }) => log.api_key_id === 'alice-key')).toBe(true);
    const all = await api(gw, 'GET', '/v1/admin/logs?page_size=100');
    expect(all.body.meta.total).toBeGreaterThan(own.body.meta.total);
    const other = all.body.data.find((log: { api_key_id: string }) => log.api_key_id !== 'alice-key');
    expect((await api(gw, 'GET', `/v1/logs/${other.id}`, undefined, DEMO_KEY)).status).toBe(404);
    expect((await api(gw, 'GET', `/v1/logs/${own.body.data[0].id}`, undefined, DEMO_KEY)).body.account_id).toBe('alice');
    expect((await api(gw, 'GET', '/v1/admin/logs', undefined, DEMO_KEY)).status).toBe(403);
  });

  it('refuses an SSO callback that this browser did not start', async () => {
    const response = await fetch(`${base}/console/sso/callback?code=x&state=forged`, { headers: { cookie: 'gw_console_sso=other' } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('not started in this browser');
  });

  it('system status reports management writability', async () => {
    const status = await api(gw, 'GET', '/v1/system/status', undefined, MASTER_KEY);
    expect(status.body.management).toEqual({ writable: false, reason: expect.stringContaining('write_back is false') });
  });
});
