/**
 * The console's follow-ups in a real browser (Debian's chromium through playwright-core): the
 * guardrails page (fields per check type, refusals beside the field, attachments), two-factor
 * recovery codes (shown once, counted, one used at sign-in and refused the second time), unsaved
 * edits that survive a revoked session and a reload, and the daily-work pages in dark mode. Every
 * write is checked through the API; every page is scanned by axe-core and photographed
 * (test-artifacts/console/followups-*.png) at desktop and phone size.
 */
import { readFile } from 'node:fs/promises';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecurityService } from '../../src/features/security/service.ts';
import { api, client, DEMO_KEY, type TestGateway } from '../_setup.ts';
import { startConsoleRig, submitPasswordForm, type ConsoleRig } from '../console/harness.ts';

const ROOT = { email: 'root@example.com', password: 'admin pass phrase' };
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

let rig: ConsoleRig;
let gw: TestGateway;
let base: string;
const security = () => gw.gateway.runtime.services.security as SecurityService;
/** An access token of the page's console session, as the console itself asks for one. */
const consoleToken = (page: Page) =>
  page.evaluate(() => fetch('/console/session/token', { method: 'POST', headers: { 'x-gateway-console': '1' } }).then(async (r) => (await r.json()).access_token as string));

beforeAll(async () => {
  rig = await startConsoleRig('console-daily.yaml', { screenshots: 'followups-' });
  ({ gw, base } = rig);
}, 60_000);

afterAll(() => rig?.close());

const newPage = (viewport = DESKTOP) => rig.newPage(viewport);

/** From the console's sign-in button through the password form; `then` answers a second step if any. */
async function signIn(page: Page, landing = 'overview', then?: () => Promise<void>) {
  await submitPasswordForm(page, ROOT);
  await then?.();
  await page.waitForURL(`${base}/console/${landing}`);
}

const guardrails = async () => (await api(gw, 'GET', '/v1/admin/guardrails')).body.data as Array<Record<string, any>>;

describe('the console follow-ups', { timeout: 180_000 }, () => {
  let admin: Page;

  it('signs the admin in; Guardrails is in the navigation', async () => {
    ({ page: admin } = await newPage());
    await admin.goto(`${base}/console/`);
    await signIn(admin);
    await admin.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Guardrails' }).waitFor();
  });

  it('creates a guardrail with the fields of its check, the refusal beside the field, and attaches it', async () => {
    await rig.go(admin, 'guardrails', 'Guardrails');
    await admin.getByText('No guardrail yet.').waitFor();
    await admin.getByRole('button', { name: 'Create guardrail' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Create a guardrail' });
    expect(await dialog.getByLabel('Id', { exact: true }).evaluate((el) => el === document.activeElement)).toBe(true);
    await dialog.getByLabel('Name').fill('Project names');
    await dialog.getByLabel('Id', { exact: true }).fill('project-names');
    // A regex check: no pattern is refused, beside the Patterns field.
    await dialog.getByRole('button', { name: 'Create guardrail' }).click();
    await expect.poll(() => dialog.locator('.field-error').allTextContents()).toEqual([expect.stringContaining('patterns')]);
    expect(await dialog.getByLabel('Patterns').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Patterns').fill('project\\s+falcon\n(?<!\\w)blue-?bird');
    await dialog.getByLabel('Category').fill('codename');
    await dialog.getByLabel('Action').selectOption('redact');
    await dialog.getByLabel('Runs on').selectOption('both');
    await dialog.getByRole('group', { name: 'Models' }).getByLabel('gpt-4o-mini').check();
    await dialog.getByRole('group', { name: 'Groups' }).getByLabel('default').check();
    await dialog.getByLabel('API key ids').fill('alice-key');
    await rig.check(admin, 'guardrail-form');
    await dialog.getByRole('button', { name: 'Create guardrail' }).click();
    await dialog.waitFor({ state: 'detached' });
    await admin.getByText('Saved guardrail project-names.').waitFor();
    expect(await guardrails()).toEqual([
      expect.objectContaining({
        id: 'project-names',
        name: 'Project names',
        stage: 'both',
        action: 'redact',
        apply_to: { default: false, models: ['gpt-4o-mini'], groups: ['default'], keys: ['alice-key'] },
        check: { type: 'regex', patterns: ['project\\s+falcon', '(?<!\\w)blue-?bird'], category: 'codename' },
      }),
    ]);
    const row = admin.getByRole('row', { name: /Project names/ });
    expect(await row.textContent()).toContain('2 pattern(s)');
    await rig.check(admin, 'guardrails');
  });

  it('edits it into another check type: only that type’s fields are sent, and the old ones are gone', async () => {
    await admin.getByRole('button', { name: 'Edit project-names' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Edit guardrail project-names' });
    expect(await dialog.getByLabel('Patterns').inputValue()).toBe('project\\s+falcon\n(?<!\\w)blue-?bird');
    await dialog.getByLabel('Check').selectOption('pii');
    expect(await dialog.getByLabel('Patterns').count()).toBe(0);
    await dialog.getByRole('group', { name: 'Personal data' }).getByLabel('email').check();
    await dialog.getByRole('group', { name: 'Personal data' }).getByLabel('iban').check();
    await dialog.getByRole('group', { name: 'National phone forms of' }).getByLabel('FR').check();
    await dialog.getByLabel('Every request (default)').check();
    await dialog.getByRole('group', { name: 'Models' }).getByLabel('gpt-4o-mini').uncheck();
    await rig.check(admin, 'guardrail-edit-pii');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const [saved] = await guardrails();
    expect(saved).toMatchObject({ stage: 'both', action: 'redact', check: { type: 'pii', kinds: ['email', 'iban'], regions: ['FR'] } });
    expect(saved!.check).not.toHaveProperty('patterns');
    expect(saved!.apply_to).toEqual({ default: true, models: [], groups: ['default'], keys: ['alice-key'] });
  });

  it('creates a webhook guardrail: a refused URL and timeout beside their fields, header values kept masked', async () => {
    await admin.getByRole('button', { name: 'Create guardrail' }).first().click();
    const dialog = admin.getByRole('dialog', { name: 'Create a guardrail' });
    await dialog.getByLabel('Name').fill('Screening');
    await dialog.getByLabel('Check').selectOption('webhook');
    await dialog.getByLabel('Webhook URL').fill('ftp://screening.example');
    await dialog.getByRole('button', { name: 'Create guardrail' }).click();
    await expect.poll(() => dialog.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Webhook URL').fill('https://screening.example/check');
    await dialog.getByLabel('Timeout (ms)').fill('soon');
    await dialog.getByRole('button', { name: 'Create guardrail' }).click();
    await expect.poll(() => dialog.getByLabel('Timeout (ms)').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Timeout (ms)').fill('1500');
    await dialog.getByLabel('When the check cannot answer').selectOption('closed');
    await dialog.getByLabel('Webhook headers').fill('Authorization: Bearer shared-secret');
    await dialog.getByLabel('Action').selectOption('flag');
    // Attached to nothing: refused, said above the buttons.
    await dialog.getByRole('button', { name: 'Create guardrail' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'applies to nothing' }).waitFor();
    await dialog.getByLabel('Every request (default)').check();
    await dialog.getByRole('button', { name: 'Create guardrail' }).click();
    await dialog.waitFor({ state: 'detached' });
    const screening = (await guardrails()).find((g) => g.name === 'Screening')!;
    expect(screening).toMatchObject({ id: 'screening', action: 'flag', check: { type: 'webhook', url: 'https://screening.example/check', timeout_ms: 1500, fail: 'closed', headers: { Authorization: '***' } } });
    expect(await readFile(gw.configFile, 'utf8')).toContain('Bearer shared-secret');

    // Edited without touching the headers: the stored value stays.
    await admin.getByRole('button', { name: 'Edit screening' }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit guardrail screening' });
    expect(await edit.getByLabel('Webhook headers').inputValue()).toBe('Authorization: ***');
    await edit.getByLabel('Timeout (ms)').fill('2500');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await api(gw, 'GET', '/v1/admin/guardrails/screening')).body.check).toMatchObject({ timeout_ms: 2500, headers: { Authorization: '***' } });
    expect(await readFile(gw.configFile, 'utf8')).toContain('Bearer shared-secret');

    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'guardrails-phone');
    await admin.getByRole('button', { name: 'Edit screening' }).click();
    await rig.check(admin, 'guardrail-form-phone');
    await admin.getByRole('dialog', { name: 'Edit guardrail screening' }).getByRole('button', { name: 'Cancel' }).click();
    await admin.setViewportSize(DESKTOP);

    await admin.getByRole('button', { name: 'Delete screening' }).click();
    await expect.poll(async () => (await api(gw, 'GET', '/v1/admin/guardrails/screening')).status).toBe(404);
    await admin.getByText('Deleted guardrail screening.').waitFor();
  });

  it('generates recovery codes, shown once, counted; a new set replaces the old', async () => {
    const status = async () => (await api(gw, 'GET', '/v1/security/status', undefined, await consoleToken(admin))).body;
    await rig.go(admin, 'security', 'Security');
    await admin.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await admin.locator('.totp code').textContent())!.trim();
    await admin.getByLabel('Code').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await admin.getByRole('button', { name: 'Verify' }).click();
    await admin.getByText('No recovery codes yet').waitFor();

    await admin.getByRole('button', { name: 'Generate recovery codes' }).click();
    const shown = admin.getByRole('dialog', { name: 'Your recovery codes' });
    await shown.getByRole('listitem').first().waitFor();
    const codes = await shown.getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    expect((await status()).recovery_codes_remaining).toBe(10);
    await rig.check(admin, 'recovery-codes');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'recovery-codes-phone');
    await admin.setViewportSize(DESKTOP);
    await shown.getByRole('button', { name: 'I saved them' }).click();
    await admin.getByText('10 of 10 recovery codes left.').waitFor();

    await admin.getByRole('button', { name: 'Regenerate recovery codes' }).click();
    const renewedList = admin.getByRole('dialog', { name: 'Your recovery codes' }).getByRole('listitem');
    await renewedList.first().waitFor();
    const renewed = await renewedList.allTextContents();
    expect(renewed).toHaveLength(10);
    expect(renewed.some((code) => codes.includes(code))).toBe(false);
    await admin.getByRole('button', { name: 'I saved them' }).click();
    await rig.check(admin, 'security-recovery');

    // A lost authenticator: a recovery code signs in on a new browser, once.
    const { page, context } = await newPage(PHONE);
    await page.goto(`${base}/console/`);
    await signIn(page, 'overview', async () => {
      await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor();
      await page.getByLabel('Recovery code').fill(codes[0]!);
      await page.getByRole('button', { name: 'Use the recovery code' }).click();
      await page.getByText('That recovery code is wrong or was already used.').waitFor();
      await rig.check(page, 'second-factor-recovery-phone');
      await page.getByLabel('Recovery code').fill(renewed[0]!);
      await page.getByRole('button', { name: 'Use the recovery code' }).click();
    });
    expect((await status()).recovery_codes_remaining).toBe(9);
    await context.close();

    const again = await newPage();
    await again.page.goto(`${base}/console/`);
    await submitPasswordForm(again.page, ROOT);
    await again.page.getByLabel('Recovery code').fill(renewed[0]!);
    await again.page.getByRole('button', { name: 'Use the recovery code' }).click();
    await again.page.getByText('That recovery code is wrong or was already used.').waitFor();
    await again.context.close();

    await admin.reload();
    await admin.getByText('9 of 10 recovery codes left.').waitFor();
    // Back to the password alone for the rest (and the lock the wrong tries left lifted).
    await security().resetTwoFactor('root');
  });

  it('keeps unsaved edits through a revoked session and a reload, secrets left out, and forgets them on save or cancel', async () => {
    await rig.go(admin, 'providers', 'Providers');
    await admin.getByRole('button', { name: 'Edit mock' }).click();
    let edit = admin.getByRole('dialog', { name: 'Edit provider mock' });
    await edit.getByLabel('Total timeout (ms)').fill('12345');
    await edit.getByLabel('API key').fill('sk-upstream-never-stored');
    // Signed out in another tab: this one's session is revoked.
    const other = await admin.context().newPage();
    await other.goto(`${base}/console/overview`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('button', { name: 'Sign in with your gateway account' }).waitFor();
    await other.close();
    await admin.getByRole('dialog', { name: 'You are signed out' }).waitFor();
    expect(await admin.evaluate(() => JSON.stringify(sessionStorage))).not.toContain('sk-upstream-never-stored');

    // A reload: the sign-in page, then back to the providers with the form open on the edit.
    await admin.reload();
    await signIn(admin, 'providers');
    edit = admin.getByRole('dialog', { name: 'Edit provider mock' });
    await edit.waitFor();
    expect(await edit.getByLabel('Total timeout (ms)').inputValue()).toBe('12345');
    expect(await edit.getByLabel('API key').inputValue()).toBe('');
    await rig.check(admin, 'draft-restored');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await api(gw, 'GET', '/v1/admin/providers/mock')).body.timeouts).toMatchObject({ total: 12345 });
    expect(await admin.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('gw-console-draft:')))).toEqual([]);

    // Cancelled: the draft is gone, a reload opens no form.
    await admin.getByRole('button', { name: 'Edit mock' }).click();
    await admin.getByRole('dialog', { name: 'Edit provider mock' }).getByLabel('Total timeout (ms)').fill('999');
    await admin.getByRole('dialog', { name: 'Edit provider mock' }).getByRole('button', { name: 'Cancel' }).click();
    await admin.reload();
    await admin.getByRole('button', { name: 'Edit mock' }).waitFor();
    expect(await admin.getByRole('dialog').count()).toBe(0);

    // A page form (settings) and a new item's form (a guardrail) come back after a reload too.
    await rig.go(admin, 'settings', 'Settings');
    await admin.getByLabel('Time zone').fill('Europe/Paris');
    await admin.reload();
    await admin.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await expect.poll(() => admin.getByLabel('Time zone').inputValue()).toBe('Europe/Paris');
    await admin.getByRole('button', { name: 'Save settings' }).click();
    await admin.getByText('Settings saved.').waitFor();
    expect((await api(gw, 'GET', '/v1/admin/users/root/settings')).body.account.timezone).toBe('Europe/Paris');

    await rig.go(admin, 'guardrails', 'Guardrails');
    await admin.getByRole('button', { name: 'Create guardrail' }).click();
    await admin.getByRole('dialog', { name: 'Create a guardrail' }).getByLabel('Name').fill('Half written');
    await admin.reload();
    const restored = admin.getByRole('dialog', { name: 'Create a guardrail' });
    await restored.waitFor();
    expect(await restored.getByLabel('Name').inputValue()).toBe('Half written');
    await restored.getByRole('button', { name: 'Close' }).click();
    await admin.reload();
    await admin.getByRole('heading', { level: 1, name: 'Guardrails' }).waitFor();
    await admin.getByRole('row', { name: /Project names/ }).waitFor();
    expect(await admin.getByRole('dialog').count()).toBe(0);
  });

  it('shows the playground, logs, breakdown and provider pages in dark mode with dark surfaces', async () => {
    await expect(client(gw, DEMO_KEY).chat.completions.create({ model: 'mock/fail-503', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 503 });
    await rig.go(admin, 'playground', 'Playground');
    await admin.getByLabel('Theme').selectOption('dark');
    await admin.getByLabel('System prompt').fill('You are terse.');
    await admin.getByLabel('Message').fill('Hello in the dark');
    await admin.getByRole('button', { name: 'Send' }).click();
    const pane = admin.getByRole('region', { name: /^Conversation with / });
    await expect.poll(() => pane.locator('.bubble-assistant').textContent()).toContain('Hello in the dark');
    await expect.poll(async () => (await pane.getByRole('definition').allTextContents()).at(-1)).toMatch(/\d/);
    const background = (selector: string) => admin.locator(selector).first().evaluate((el) => getComputedStyle(el).backgroundColor);
    /** Dark enough: each channel below the middle. */
    const dark = (rgb: string) => (rgb.match(/\d+/g) ?? []).slice(0, 3).every((channel) => Number(channel) < 100);
    for (const selector of ['.bubble-user', '.bubble-assistant', '.field textarea']) expect(dark(await background(selector)), selector).toBe(true);
    await rig.check(admin, 'dark-playground');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'dark-playground-phone');
    await admin.setViewportSize(DESKTOP);

    await rig.go(admin, 'logs', 'Logs');
    await admin.locator('tbody tr').first().waitFor();
    await rig.check(admin, 'dark-logs');
    const id = (await api(gw, 'GET', '/v1/admin/logs?model=gpt-4o-mini')).body.data[0].id;
    await rig.go(admin, `logs/${id}`, 'Log entry');
    expect(dark(await background('a.button'))).toBe(true);
    await rig.check(admin, 'dark-log-detail');

    await rig.go(admin, 'overview', 'Overview');
    const panel = admin.getByRole('region', { name: 'Spend, errors and latency' });
    await panel.getByRole('row', { name: /gpt-4o-mini/ }).waitFor();
    await rig.check(admin, 'dark-overview');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'dark-overview-phone');
    await admin.setViewportSize(DESKTOP);

    await rig.go(admin, 'providers', 'Providers');
    await admin.getByRole('button', { name: 'Health of mock' }).click();
    await admin.getByRole('dialog', { name: 'Health of mock' }).getByRole('row', { name: /fail-503/ }).waitFor();
    await rig.check(admin, 'dark-provider-health');
    await admin.getByRole('dialog', { name: 'Health of mock' }).getByRole('button', { name: 'Close' }).click();
    await admin.getByRole('button', { name: 'Test mock' }).click();
    await admin.getByRole('dialog', { name: 'Test provider mock' }).getByRole('button', { name: 'Run the test' }).click();
    await admin.getByText(/It works: gpt-4o-mini answered in/).waitFor();
    await rig.check(admin, 'dark-provider-test');
    await admin.getByRole('dialog', { name: 'Test provider mock' }).getByRole('button', { name: 'Close' }).click();
    await admin.getByRole('button', { name: 'Edit mock' }).click();
    expect(dark(await background('.field textarea'))).toBe(true);
    await rig.check(admin, 'dark-provider-form');
    await admin.getByRole('dialog', { name: 'Edit provider mock' }).getByRole('button', { name: 'Cancel' }).click();
    await rig.go(admin, 'guardrails', 'Guardrails');
    await rig.check(admin, 'dark-guardrails');
  });
});
