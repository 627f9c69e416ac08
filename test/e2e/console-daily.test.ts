/**
 * The console's daily work in a real browser (Debian's chromium through playwright-core): the
 * playground (streamed answers, parameters, two models side by side, figures, code without the
 * token), logs with the new filters, cost and error columns, CSV export and "open in playground",
 * key budgets and expiry, the overview's breakdown, provider timeouts/headers/prefix, a model's
 * weights, the provider test and health. Every write is checked through the API; every page is
 * scanned by axe-core and photographed (test-artifacts/console/daily-*.png) at desktop and phone size.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, client, DEMO_KEY, type MockUpstream, type TestGateway } from '../_setup.ts';
import { startConsoleRig, type ConsoleRig } from '../console/harness.ts';

const ROOT = { email: 'root@example.com', password: 'admin pass phrase' };
const ALICE = { email: 'alice@example.com', password: 'correct horse battery' };
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

let rig: ConsoleRig;
let mock: MockUpstream;
let gw: TestGateway;
let base: string;
const paints: Record<string, number> = {};

beforeAll(async () => {
  rig = await startConsoleRig('console-daily.yaml', { screenshots: 'daily-' });
  ({ mock, gw, base } = rig);
}, 60_000);

afterAll(() => rig?.close());

const newPage = (viewport = DESKTOP) => rig.newPage(viewport, { acceptDownloads: true });

async function go(page: Page, path: string, heading: string) {
  await rig.go(page, path, heading);
  paints[path.split('?')[0]!] = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
}

const adminLogs = async (query: string) => (await api(gw, 'GET', `/v1/admin/logs?${query}`)).body;

describe('the console for daily work', { timeout: 180_000 }, () => {
  let admin: Page;

  it('signs the admin in; the playground is in the navigation', async () => {
    ({ page: admin } = await newPage());
    await rig.signIn(admin, ROOT);
    await admin.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Playground' }).waitFor();
  });

  it('chats in the playground with streaming and parameters, and shows time, tokens and cost', async () => {
    await go(admin, 'playground', 'Playground');
    await admin.getByLabel('Model', { exact: true }).selectOption('gpt-4o-mini');
    await admin.getByLabel('System prompt').fill('You are terse.');
    await admin.getByLabel('Temperature').fill('0.5');
    await admin.getByLabel('Max tokens').fill('50');
    await admin.getByLabel('Message').fill('Hello playground');
    await admin.getByRole('button', { name: 'Send' }).click();
    const pane = admin.getByRole('region', { name: 'Conversation with gpt-4o-mini' });
    await expect.poll(() => pane.locator('.bubble-assistant').textContent()).toContain('Hello playground');
    const figures = pane.getByRole('definition');
    // First token, total, tokens in / out, cost (from the call's log entry).
    await expect.poll(async () => (await figures.allTextContents()).every((text) => text !== '—' && text !== '…')).toBe(true);
    const [ttft, total, tokens, cost] = await figures.allTextContents();
    expect([ttft, total]).toEqual([expect.stringMatching(/\d+ ms|s$/), expect.stringMatching(/\d+ ms|s$/)]);
    expect(tokens).toMatch(/^\d+ \/ \d+$/);
    expect(cost).toMatch(/\d/);
    // The write went through the gateway as sent: the API's log has the call with its parameters.
    const logs = await adminLogs('model=gpt-4o-mini&endpoint=chat');
    expect(logs.meta.total).toBe(1);
    const entry = (await api(gw, 'GET', `/v1/admin/logs/${logs.data[0].id}`)).body;
    expect(entry.request).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.5, max_tokens: 50, stream: true, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello playground' }] });
    expect(entry.account_id).toBe('root');
    expect(cost).toContain(String(entry.cost.total).slice(0, 4));
    await rig.check(admin, 'playground');
  });

  it('compares two models side by side, each with its own figures', async () => {
    await admin.getByLabel('Compare with a second model').check();
    await admin.getByLabel('Second model', { exact: true }).selectOption('gpt-4o');
    await admin.getByLabel('Message').fill('And again');
    await admin.getByRole('button', { name: 'Send' }).click();
    for (const model of ['gpt-4o-mini', 'gpt-4o']) {
      const pane = admin.getByRole('region', { name: `Conversation with ${model}` });
      await expect.poll(() => pane.locator('.bubble-assistant').last().textContent()).toContain('And again');
      await expect.poll(async () => (await pane.getByRole('definition').allTextContents()).at(-1)).toMatch(/\d/);
    }
    expect((await adminLogs('model=gpt-4o')).meta.total).toBe(1);
    // The second model got the conversation so far (its own pane: no answers yet) plus the new message.
    const second = (await api(gw, 'GET', `/v1/admin/logs/${(await adminLogs('model=gpt-4o')).data[0].id}`)).body;
    expect(second.request.messages.at(-1)).toEqual({ role: 'user', content: 'And again' });
    await rig.check(admin, 'playground-compare');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'playground-compare-phone');
    await admin.setViewportSize(DESKTOP);
  });

  it('copies the call as curl or SDK code with a placeholder, never the signed-in token', async () => {
    await admin.getByRole('button', { name: 'Copy as code' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Copy the call as code' });
    const code = () => dialog.locator('pre').textContent();
    expect(await code()).toContain('Authorization: Bearer $GATEWAY_API_KEY');
    expect(await code()).toContain(`${base}/api/v1/chat/completions`);
    await rig.check(admin, 'playground-code');
    await dialog.getByLabel('Language').selectOption('python');
    expect(await code()).toContain('api_key=os.environ["GATEWAY_API_KEY"]');
    await dialog.getByLabel('Language').selectOption('node');
    expect(await code()).toContain('apiKey: process.env.GATEWAY_API_KEY');
    const tokens = await admin.evaluate(() => Object.values(sessionStorage).join(' '));
    for (const secret of tokens.match(/[A-Za-z0-9_-]{20,}/g) ?? []) expect(await code()).not.toContain(secret);
    await dialog.getByRole('button', { name: 'Done' }).click();
  });

  it('filters the logs by endpoint, model, error code, account and provider, shows cost and error, and exports the list', async () => {
    await expect(client(gw, DEMO_KEY).chat.completions.create({ model: 'mock/fail-503', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 503 });
    await expect.poll(async () => (await adminLogs('status=error')).meta.total).toBe(1);
    await go(admin, 'logs', 'Logs');
    await admin.getByLabel('Model').selectOption('gpt-4o');
    await admin.getByLabel('Endpoint').selectOption('chat');
    await admin.getByRole('button', { name: 'Apply filters' }).click();
    await admin.waitForURL(/endpoint=chat/);
    await expect.poll(() => admin.locator('tbody tr').count()).toBe(1);
    expect(await admin.locator('tbody tr').first().textContent()).toMatch(/gpt-4o via mock/);
    await admin.getByRole('button', { name: 'Clear' }).click();
    await admin.getByLabel('Error code').fill('upstream_unavailable');
    await admin.getByLabel('Account').selectOption('alice');
    await admin.getByLabel('Provider').selectOption('mock');
    await admin.getByRole('button', { name: 'Apply filters' }).click();
    await admin.waitForURL(/error_code=upstream_unavailable/);
    await expect.poll(() => admin.locator('tbody tr').count()).toBe(1);
    const row = await admin.locator('tbody tr').first().textContent();
    expect(row).toContain('upstream_unavailable');
    expect(row).toContain("Alice's key");
    await rig.check(admin, 'logs-filtered');

    await admin.getByRole('button', { name: 'Clear' }).click();
    // The first playground call, the two compared ones and alice's failed call.
    await expect.poll(() => admin.locator('tbody tr').count()).toBe(4);
    const download = admin.waitForEvent('download');
    await admin.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^logs-.*\.csv$/);
    const lines = (await readFile((await file.path())!, 'utf8')).trim().split('\r\n');
    expect(lines[0]).toBe('id,created_at,status,error_code,endpoint,model,provider,account_id,api_key_id,api_key_name,request_tokens,response_tokens,latency_ms,ttft_ms,cost,currency,ip');
    const all = await adminLogs('page_size=100');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(all.data.map((log: { id: string }) => log.id));
    await admin.getByText('Exported 4 calls.').waitFor();
    await rig.check(admin, 'logs');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'logs-phone');
    await admin.setViewportSize(DESKTOP);
  });

  it('opens a logged call in the playground and copies it as curl', async () => {
    const id = (await adminLogs('model=gpt-4o-mini')).data.at(-1).id;
    await go(admin, `logs/${id}`, 'Log entry');
    await admin.getByRole('button', { name: 'Copy as curl' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Copy the call as code' });
    expect(await dialog.locator('pre').textContent()).toContain('Hello playground');
    await rig.check(admin, 'log-detail-curl');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await admin.getByRole('link', { name: 'Open in the playground' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    await expect.poll(() => admin.getByLabel('Message').inputValue()).toBe('Hello playground');
    expect(await admin.getByLabel('System prompt').inputValue()).toBe('You are terse.');
    expect(await admin.getByLabel('Temperature').inputValue()).toBe('0.5');
    expect(await admin.getByLabel('Model', { exact: true }).inputValue()).toBe('gpt-4o-mini');
  });

  it('sets a key budget (quota, period) and an expiry on the key form', async () => {
    await go(admin, 'keys', 'API keys');
    await admin.getByRole('button', { name: 'Create key' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name').fill('budgeted');
    await dialog.getByLabel('Token quota').fill('lots');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => dialog.locator('.field-error').allTextContents()).toEqual([expect.stringContaining('quota_limit')]);
    await dialog.getByLabel('Token quota').fill('1000');
    await dialog.getByLabel('Quota starts over').selectOption('daily');
    await dialog.getByLabel('Expires').fill('2099-12-31T23:30');
    await rig.check(admin, 'key-form');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await admin.getByRole('dialog', { name: 'Key "budgeted" created' }).getByRole('button', { name: 'Done' }).click();
    const created = (await api(gw, 'GET', '/v1/api-keys')).body.data.find((k: { name: string }) => k.name === 'budgeted');
    expect(created.permissions).toMatchObject({ quota_limit: 1000, quota_period: 'daily', expires_at: expect.stringMatching(/^(2099-12-31|2100-01-01)T/) });
    await admin.getByRole('meter', { name: 'Quota of budgeted' }).waitFor();
    await admin.getByRole('button', { name: 'Edit budgeted' }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit budgeted' });
    expect(await edit.getByLabel('Expires').inputValue()).toBe('2099-12-31T23:30');
    await edit.getByLabel('Expires').fill('');
    await edit.getByLabel('Quota starts over').selectOption('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    const saved = (await api(gw, 'GET', `/v1/api-keys/${created.id}`)).body;
    expect(saved.permissions).toEqual({ models: [], rate_limit: 0, quota_limit: 1000 });
    await rig.check(admin, 'keys');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'keys-phone');
    await admin.setViewportSize(DESKTOP);
  });

  it('shows spend, errors and TTFT/latency percentiles per model, provider, key, account and group on the overview', async () => {
    await go(admin, 'overview', 'Overview');
    const panel = admin.getByRole('region', { name: 'Spend, errors and latency' });
    await panel.getByRole('row', { name: /gpt-4o-mini/ }).waitFor();
    const stats = async (by: string) => (await api(gw, 'GET', `/v1/statistics/breakdown?by=${by}`)).body.data;
    const mini = (await stats('model')).find((r: { id: string }) => r.id === 'gpt-4o-mini');
    expect(mini).toMatchObject({ request_count: 2, error_count: 0, ttft_p50: expect.any(Number), ttft_p95: expect.any(Number) });
    await panel.getByLabel('Per', { exact: true }).selectOption('provider');
    await expect.poll(() => panel.getByRole('row', { name: /^mock/ }).textContent()).toMatch(/^mock4\s*1 \(25(\.0)?%\)/);
    await panel.getByLabel('Per', { exact: true }).selectOption('account');
    await panel.getByRole('row', { name: /^alice/ }).waitFor();
    await panel.getByLabel('Per', { exact: true }).selectOption('key');
    await panel.getByRole('row', { name: /Alice's key/ }).waitFor();
    await rig.check(admin, 'overview');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'overview-phone');
    await admin.setViewportSize(DESKTOP);
  });

  it("edits a provider's timeouts, headers and prefix settings, tests it and reads its health", async () => {
    await go(admin, 'providers', 'Providers');
    await admin.getByRole('button', { name: 'Edit mock' }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit provider mock' });
    await edit.getByLabel('Total timeout (ms)').fill('30000');
    await edit.getByLabel('Extra headers').fill('X-Team: research');
    await edit.getByLabel('Continues a cut answer').selectOption('true');
    await edit.getByLabel('Prefix style').selectOption('continue_final_message');
    await rig.check(admin, 'provider-form');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    const provider = (await api(gw, 'GET', '/v1/admin/providers/mock')).body;
    expect(provider).toMatchObject({ timeouts: { total: 30000 }, accepts_prefix: true, prefix_style: 'continue_final_message', headers: { 'X-Team': expect.any(String) } });

    await admin.getByRole('button', { name: 'Test mock' }).click();
    const test = admin.getByRole('dialog', { name: 'Test provider mock' });
    await test.getByRole('button', { name: 'Run the test' }).click();
    await test.getByText(/It works: gpt-4o-mini answered in/).waitFor();
    // The header set above went upstream with the test call.
    expect(mock.requests.at(-1)!.headers['x-team']).toBe('research');
    await rig.check(admin, 'provider-test');
    await test.getByLabel('Upstream model').fill('fail-503');
    await test.getByRole('button', { name: 'Run the test' }).click();
    await test.getByText(/The call failed/).waitFor();
    expect(await test.locator('.facts').textContent()).toContain('503');
    await test.getByRole('button', { name: 'Close' }).click();

    await admin.getByRole('button', { name: 'Health of mock' }).click();
    const health = admin.getByRole('dialog', { name: 'Health of mock' });
    await health.getByRole('row', { name: /fail-503/ }).waitFor();
    await health.getByRole('link').first().waitFor(); // the failed call of alice's
    await rig.check(admin, 'provider-health');
    await health.getByRole('button', { name: 'Close' }).click();

    // Removing the header sends it back as null: gone from the API's answer.
    await admin.getByRole('button', { name: 'Edit mock' }).click();
    const again = admin.getByRole('dialog', { name: 'Edit provider mock' });
    await again.getByLabel('Extra headers').fill('');
    await again.getByRole('button', { name: 'Save' }).click();
    await again.waitFor({ state: 'detached' });
    expect((await api(gw, 'GET', '/v1/admin/providers/mock')).body.headers ?? {}).toEqual({});
    await rig.check(admin, 'providers');
    await admin.setViewportSize(PHONE);
    await rig.check(admin, 'providers-phone');
    await admin.setViewportSize(DESKTOP);
  });

  it("sets a model's weight and deployments", async () => {
    await go(admin, 'models', 'Models');
    await admin.getByRole('button', { name: 'Edit gpt-4o', exact: true }).click();
    const edit = admin.getByRole('dialog', { name: 'Edit model gpt-4o' });
    await edit.getByLabel('Weight of the provider').fill('3');
    await edit.getByLabel('More deployments').fill('mock:gpt-4o-mini=1');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await api(gw, 'GET', '/v1/admin/models/gpt-4o')).body).toMatchObject({ weight: 3, deployments: [{ provider: 'mock', upstream_model: 'gpt-4o-mini', weight: 1 }] });
    await rig.check(admin, 'models');
  });

  it('gives a member the playground on their own models and their own logs, without admin filters', async () => {
    const { page, context } = await newPage(PHONE);
    await rig.signIn(page, ALICE);
    await go(page, 'playground', 'Playground');
    await page.getByLabel('Message').fill('Hi from alice');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.bubble-assistant').textContent()).toContain('Hi from alice');
    await expect.poll(async () => (await page.getByRole('definition').allTextContents()).at(-1)).toMatch(/\d/);
    const own = (await api(gw, 'GET', '/v1/logs?page_size=100', undefined, DEMO_KEY)).body;
    expect(own.data.map((log: { model: string }) => log.model)).toContain('gpt-4o-mini');
    await rig.check(page, 'member-playground-phone');
    // A value the API refuses: its message in the pane, nothing sent upstream.
    const before = mock.requests.length;
    await page.getByLabel('Temperature').fill('hot');
    await page.getByLabel('Message').fill('Too hot');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('temperature');
    expect(mock.requests.length).toBe(before);
    await page.getByLabel('Temperature').fill('');
    await go(page, 'logs', 'Logs');
    expect(await page.getByLabel('Account').count()).toBe(0);
    expect(await page.getByLabel('Provider').count()).toBe(0);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(own.meta.total);
    await rig.check(page, 'member-logs-phone');
    await go(page, 'overview', 'Overview');
    await page.getByRole('region', { name: 'Spend, errors and latency' }).getByRole('row', { name: /gpt-4o-mini/ }).waitFor();
    await rig.check(page, 'member-overview-phone');
    await context.close();
  });

  it('painted every page it opened quickly (reported, not asserted: timings vary with the machine)', () => {
    console.log('first contentful paint (ms):', JSON.stringify(paints));
    expect(Object.keys(paints).length).toBeGreaterThan(5);
  });
});
