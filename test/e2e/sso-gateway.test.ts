/**
 * One gateway as the company SSO of another (issue 34): the identity provider serves the standard
 * OIDC scopes and claims (openid, email, profile), so the other gateway's console signs its people
 * in with it; and when the SSO is set up wrong (a scope or a secret the provider refuses), the
 * error page says the configuration is at fault, not the account.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../_process.ts';
import { api, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';
import { horizontalOverflow, launchBrowser, screenshot, seriousViolations } from '../console/browser.ts';

const SECRET = 'sp-client-secret-0123456789abcdef';
const DANA = { email: 'dana@corp.example', password: 'correct horse battery' };

let mock: MockUpstream;
let idp: TestGateway;
let sp: TestGateway;
let browser: Browser;

beforeAll(async () => {
  mock = await startMockUpstream();
  const [idpPort, spPort] = [await freePort(), await freePort()];
  const idpBase = `http://127.0.0.1:${idpPort}`;
  const spBase = `http://127.0.0.1:${spPort}`;
  idp = await startTestGateway('sso-idp.yaml', { PORT: String(idpPort), GATEWAY_BASE_URL: idpBase, MOCK_URL: `${mock.url}/v1`, SP_SECRET: SECRET, SP_CALLBACK: `${spBase}/console/sso/callback` });
  sp = await startTestGateway('sso-relying.yaml', { PORT: String(spPort), GATEWAY_BASE_URL: spBase, MOCK_URL: `${mock.url}/v1`, SSO_ISSUER: idpBase, SSO_SECRET: SECRET });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sp?.close();
  await idp?.close();
  await mock?.close();
});

/** From the relying gateway's console to the identity provider's sign-in page and through it. */
async function signInThroughIdp(page: Page): Promise<void> {
  await page.goto(`${sp.url}/console/`);
  await page.getByRole('button', { name: 'Sign in with Corp gateway' }).click();
  await page.waitForURL(`${idp.url}/oauth/interaction/**`);
  await page.getByLabel('Email').fill(DANA.email);
  await page.getByLabel('Password').fill(DANA.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function editSso(change: (text: string) => string) {
  await writeFile(sp.configFile, change(await readFile(sp.configFile, 'utf8')));
  expect((await sp.gateway.config.reload()).ok).toBe(true);
}

describe('a gateway as the identity provider of another', { timeout: 120_000 }, () => {
  it('publishes the standard OIDC scopes and claims in its discovery', async () => {
    const discovery = await (await fetch(`${idp.url}/.well-known/openid-configuration`)).json();
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(discovery.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'email_verified', 'name', 'preferred_username', 'role']));
  });

  it('signs a person in through the other gateway, with the email, name and role it sends', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signInThroughIdp(page);
    // The provider's consent page lists the standard scopes, in the console's look and phone-sized.
    const consent = page.getByRole('heading', { level: 1, name: 'Authorize access' });
    await consent.waitFor();
    expect(await page.locator('li code').allTextContents()).toEqual(['openid', 'email', 'profile']);
    await screenshot(page, '30-idp-consent-phone');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await horizontalOverflow(page)).toBe(0);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${sp.url}/console/overview`);
    await page.getByText('dana@corp.example').waitFor();
    const users = await api(sp, 'GET', '/v1/admin/users');
    // role_claim defaults to `role` and admin_values to [admin]: the provider's admin is one here too.
    expect(users.body.data).toContainEqual(expect.objectContaining({ id: 'dana', email: 'dana@corp.example', name: 'Dana Scully', role: 'admin' }));
    await context.close();
  });

  it('says the configuration is at fault when the provider refuses the scopes asked for', async () => {
    await editSso((text) => text.replace('client_id: team-gateway', 'client_id: narrow-gateway'));
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${sp.url}/console/`);
      await page.getByRole('button', { name: 'Sign in with Corp gateway' }).click();
      // invalid_scope before any sign-in: straight back to the relying gateway's callback.
      await page.waitForURL(`${sp.url}/console/sso/callback?**`);
      const text = await page.locator('body').innerText();
      expect(text).toContain('not set up correctly');
      expect(text).toContain('not your account');
      expect(text).toContain('invalid_scope');
      expect(text).not.toContain('refused this account');
      await screenshot(page, '31-sso-misconfigured');
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    } finally {
      await editSso((text) => text.replace('client_id: narrow-gateway', 'client_id: team-gateway'));
    }
  });

  it('says the configuration is at fault when the provider refuses the client secret', async () => {
    await editSso((text) => text.replace('client_secret: ${SSO_SECRET}', 'client_secret: not-the-secret'));
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signInThroughIdp(page);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${sp.url}/console/sso/callback?**`);
      const text = await page.locator('body').innerText();
      expect(text).toContain('not set up correctly');
      expect(text).toContain('invalid_client');
      await context.close();
    } finally {
      await editSso((text) => text.replace('client_secret: not-the-secret', 'client_secret: ${SSO_SECRET}'));
    }
  });
});
