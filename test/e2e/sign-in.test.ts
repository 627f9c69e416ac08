/**
 * The OAuth sign-in form beyond the password, through real HTTP (pages, cookies, form posts):
 * the second factor for accounts with TOTP, trusted devices (remembered, listed, revocable), login
 * alerts by email, and the brute-force guards (failures per address and per email, known devices
 * included; the way through with a mailed code; a bound on concurrent password hashes). Each browser
 * acts from its own address (X-Forwarded-For; the test is the fixture's trusted proxy).
 */
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecurityService } from '../../src/features/security/service.ts';
import { freePort } from '../_process.ts';
import { startTestGateway, type TestGateway } from '../_setup.ts';
import { ALICE, authorize, authorizeUrl, Browser } from '../oauth-browser.ts';
import { startSmtpCapture, subjectOf, textOf, type SmtpCapture } from '../smtp-capture.ts';

const ALICE_KEY = 'sk-bf-signin-alice-000000000000000000000000';
const CAROL_KEY = 'sk-bf-signin-carol-000000000000000000000000';
const CAROL = { email: 'carol@example.com', password: ALICE.password };

let gw: TestGateway & { base: string };
let smtp: SmtpCapture;
let security: SecurityService;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  gw = Object.assign(await startTestGateway('sign-in.yaml', { PORT: String(port), GATEWAY_BASE_URL: base, SMTP_URL: smtp.url }), { base });
  security = gw.gateway.runtime.services.security as SecurityService;
});
afterAll(async () => {
  await gw?.close();
  await smtp?.close();
});

let addresses = 0;
/** A browser on its own address (or the given one). */
const browserAt = (address = `10.1.0.${++addresses}`, userAgent = 'TestBrowser/1.0') => new Browser({ 'x-forwarded-for': address, 'user-agent': userAgent });

async function api(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Opens the sign-in form of a new authorization request; returns its URL. */
async function openForm(browser: Browser): Promise<string> {
  // prompt=login: a browser with a provider session is asked to sign in again, as a new visit would be.
  let url = authorizeUrl(gw.base, { scope: 'read:user', state: 'st', prompt: 'login' });
  let response = await browser.request(url);
  while (response.status === 303 || response.status === 302) {
    url = new URL(response.headers.get('location')!, url).href;
    response = await browser.request(url);
  }
  expect(await response.text()).toMatch(/name="password"/);
  return url;
}

/** Posts a form; a redirect is followed through consent to the client (callback), a page is returned. */
async function submit(browser: Browser, url: string, form: Record<string, string>) {
  const response = await browser.postForm(url, form);
  if (response.status === 303) {
    const flow = await authorize(new URL(response.headers.get('location')!, url).href, { email: '', password: '' }, browser);
    return { status: 303, body: '', callback: flow.callback };
  }
  return { status: response.status, body: await response.text(), callback: null };
}

const login = (browser: Browser, url: string, user: { email: string; password: string }, extra: Record<string, string> = {}) =>
  submit(browser, url, { action: 'login', email: user.email, password: user.password, ...extra });

/** The current authenticator code, one time step later each call (a step is never accepted twice). */
function authenticator(otpauthUrl: string) {
  const totp = URI.parse(otpauthUrl) as TOTP;
  return () => {
    const start = Date.now();
    const base = security.now() + 30_000;
    security.now = () => base + (Date.now() - start);
    return totp.generate({ timestamp: security.now() });
  };
}

describe('second factor at sign-in and trusted devices', () => {
  it('asks an account with TOTP for a code, remembers the device after it, and asks again once the device is revoked', async () => {
    const enrol = await api('POST', '/v1/security/send-code', CAROL_KEY, { type: 'totp' });
    const nextCode = authenticator(enrol.body.otpauth_url);
    expect((await api('POST', '/v1/security/verify', CAROL_KEY, { type: 'totp', code: nextCode() })).body.verified).toBe(true);

    const browser = browserAt();
    const form = await openForm(browser);
    const asked = await login(browser, form, CAROL);
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('value="second-factor"');
    expect(asked.body).not.toMatch(/name="password"/);
    const wrong = await submit(browser, form, { action: 'second-factor', code: '000000' });
    expect(wrong.status).toBe(401);
    const right = await submit(browser, form, { action: 'second-factor', code: nextCode() });
    expect(right.callback?.searchParams.get('code')).toBeTruthy();

    const devices = (await api('GET', '/v1/security/status', CAROL_KEY)).body.trusted_devices as Array<{ id: string; name: string; last_used: string }>;
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({ name: 'TestBrowser/1.0' });
    expect(Date.parse(devices[0]!.last_used)).toBeGreaterThan(Date.now() - 60_000);

    // The remembered browser signs in with the password alone.
    const again = await login(browser, await openForm(browser), CAROL);
    expect(again.callback?.searchParams.get('code')).toBeTruthy();

    expect((await api('DELETE', `/v1/security/trusted-devices/${devices[0]!.id}`, CAROL_KEY)).status).toBe(200);
    expect((await api('GET', '/v1/security/status', CAROL_KEY)).body.trusted_devices).toEqual([]);
    expect((await api('DELETE', `/v1/security/trusted-devices/${devices[0]!.id}`, CAROL_KEY)).status).toBe(404);
    const revoked = await login(browser, await openForm(browser), CAROL);
    expect(revoked.body).toContain('value="second-factor"');

    // Turning 2FA off takes a code: a wrong one changes nothing, the right one disables it.
    expect((await api('POST', '/v1/security/two-factor/disable', CAROL_KEY, { code: '000000' })).body).toEqual({ success: false, two_factor_enabled: true });
    expect((await api('POST', '/v1/security/two-factor/disable', CAROL_KEY, { code: nextCode() })).body).toEqual({ success: true, two_factor_enabled: false });
    expect((await api('GET', '/v1/security/status', CAROL_KEY)).body).toMatchObject({ two_factor_enabled: false, two_factor_method: null });
    const fresh = browserAt();
    expect((await login(fresh, await openForm(fresh), CAROL)).callback).not.toBeNull();
  });

  it('mails a login alert for a new device or a new address when alerts are on, and not for a known pair', async () => {
    expect((await api('PUT', '/v1/security/login-alerts', ALICE_KEY, { enabled: true })).body.login_alerts_enabled).toBe(true);
    const browser = browserAt('10.2.0.1', 'AlertBrowser/2.0');
    const before = smtp.mails.length;
    expect((await login(browser, await openForm(browser), ALICE)).callback).not.toBeNull();
    const alert = await smtp.waitFor('alice@example.com', before);
    expect(alert.data).toContain('New sign-in to your account');
    expect(alert.data).toContain('10.2.0.1');

    const known = smtp.mails.length;
    expect((await login(browser, await openForm(browser), ALICE)).callback).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails.length).toBe(known);

    browser.headers['x-forwarded-for'] = '10.2.0.2';
    expect((await login(browser, await openForm(browser), ALICE)).callback).not.toBeNull();
    expect((await smtp.waitFor('alice@example.com', known)).data).toContain('10.2.0.2');
    expect((await api('PUT', '/v1/security/login-alerts', ALICE_KEY, { enabled: false })).status).toBe(200);
  });

  it("writes the sign-in pages in the browser's language, the login alert and the sign-in code in the account's", async () => {
    const enrol = await api('POST', '/v1/security/send-code', CAROL_KEY, { type: 'totp' });
    const nextCode = authenticator(enrol.body.otpauth_url);
    expect((await api('POST', '/v1/security/verify', CAROL_KEY, { type: 'totp', code: nextCode() })).body.verified).toBe(true);
    expect((await api('PUT', '/v1/settings', CAROL_KEY, { account: { language: 'zh-CN' } })).status).toBe(200);
    expect((await api('PUT', '/v1/security/login-alerts', CAROL_KEY, { enabled: true })).status).toBe(200);
    try {
      const browser = new Browser({ 'x-forwarded-for': '10.6.0.1', 'user-agent': 'ZhBrowser/1.0', 'accept-language': 'zh-CN,zh;q=0.9' });
      const form = await openForm(browser);
      const wrong = await login(browser, form, { ...CAROL, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain('邮箱或密码错误。');
      const asked = await login(browser, form, CAROL);
      expect(asked.body).toContain('<h1>双重验证</h1>');
      expect(asked.body).toContain('<button type="submit" class="primary">验证</button>');
      const wrongCode = await submit(browser, form, { action: 'second-factor', code: '000000' });
      expect(wrongCode.status).toBe(401);
      expect(wrongCode.body).toContain('验证码错误。');
      const before = smtp.mails.length;
      expect((await submit(browser, form, { action: 'second-factor', code: nextCode() })).callback).not.toBeNull();
      const alert = await smtp.waitFor('carol@example.com', before);
      expect(subjectOf(alert.data)).toBe('您的账户有新的登录');
      expect(textOf(alert.data)).toContain('地址：10.6.0.1');

      // The way past a locked email: the page offers it in the browser's language, the mail is in the account's.
      const other = new Browser({ 'x-forwarded-for': '10.6.0.2', 'accept-language': 'zh-CN' });
      const mailed = await submit(other, await openForm(other), { action: 'email-code', email: CAROL.email });
      expect(mailed.body).toContain('通过邮件发送登录码');
      expect(mailed.body).toContain('登录码已发出');
      const code = await smtp.waitFor('carol@example.com', smtp.mails.indexOf(alert) + 1);
      expect(subjectOf(code.data)).toBe('您的登录码');
      expect(textOf(code.data)).toMatch(/^您的登录码是 \d{6}，10 分钟内有效。/);
    } finally {
      await api('PUT', '/v1/security/login-alerts', CAROL_KEY, { enabled: false });
      await api('PUT', '/v1/settings', CAROL_KEY, { account: { language: 'en' } });
      await api('POST', '/v1/security/two-factor/disable', CAROL_KEY, { code: nextCode() });
    }
  });
});

describe('recovery codes', () => {
  it('are generated with two-factor on only, let a lost authenticator sign in once per code, and count against the code lock', async () => {
    expect((await api('POST', '/v1/security/recovery-codes', CAROL_KEY)).body.error).toMatchObject({ code: 'two_factor_disabled' });
    const enrol = await api('POST', '/v1/security/send-code', CAROL_KEY, { type: 'totp' });
    const nextCode = authenticator(enrol.body.otpauth_url);
    expect((await api('POST', '/v1/security/verify', CAROL_KEY, { type: 'totp', code: nextCode() })).body.verified).toBe(true);
    try {
      expect((await api('GET', '/v1/security/status', CAROL_KEY)).body.recovery_codes_remaining).toBe(0);
      const generated = await api('POST', '/v1/security/recovery-codes', CAROL_KEY);
      expect(generated.status).toBe(200);
      const codes = generated.body.codes as string[];
      expect(codes).toHaveLength(10);
      expect((await api('GET', '/v1/security/status', CAROL_KEY)).body.recovery_codes_remaining).toBe(10);

      // The second-factor page offers the recovery code; one signs in (and trusts the browser).
      const browser = browserAt();
      const form = await openForm(browser);
      const asked = await login(browser, form, CAROL);
      expect(asked.body).toContain('value="recovery-code"');
      expect(asked.body).toContain('Recovery code');
      const used = await submit(browser, form, { action: 'recovery-code', recovery_code: codes[0]!.toUpperCase() });
      expect(used.callback?.searchParams.get('code')).toBeTruthy();
      expect((await api('GET', '/v1/security/status', CAROL_KEY)).body.recovery_codes_remaining).toBe(9);

      // The same code from another browser: refused, and the page says why.
      const other = browserAt();
      const otherForm = await openForm(other);
      await login(other, otherForm, CAROL);
      const again = await submit(other, otherForm, { action: 'recovery-code', recovery_code: codes[0]! });
      expect(again.status).toBe(401);
      expect(again.body).toContain('That recovery code is wrong or was already used.');

      // A new set voids the old one, unused codes included.
      const renewed = (await api('POST', '/v1/security/recovery-codes', CAROL_KEY)).body.codes as string[];
      expect(renewed.some((code) => codes.includes(code))).toBe(false);
      expect((await submit(other, otherForm, { action: 'recovery-code', recovery_code: codes[1]! })).status).toBe(401);
      expect((await api('GET', '/v1/security/status', CAROL_KEY)).body.recovery_codes_remaining).toBe(10);

      // Wrong recovery codes and wrong authenticator codes share the lock: 5 wrong ones (two above), then 429 even for a right code.
      expect((await submit(other, otherForm, { action: 'second-factor', code: '000000' })).status).toBe(401);
      for (let i = 0; i < 2; i++) expect((await submit(other, otherForm, { action: 'recovery-code', recovery_code: 'abcde-fghjk' })).status).toBe(401);
      const locked = await submit(other, otherForm, { action: 'recovery-code', recovery_code: renewed[0]! });
      expect(locked.status).toBe(429);
      expect(locked.body).toContain('Too many wrong two-factor codes');
      expect((await api('GET', '/v1/security/status', CAROL_KEY)).body.recovery_codes_remaining).toBe(10);
    } finally {
      // Also lifts the lock the last step set.
      await security.resetTwoFactor('carol');
    }
    expect((await api('GET', '/v1/security/status', CAROL_KEY)).body).toMatchObject({ two_factor_enabled: false, recovery_codes_remaining: 0 });
  });
});

// The hash bound needs real hashes (dora's, ~0.4 s idle, seconds on a loaded machine).
describe('brute force on the sign-in form', { timeout: 120_000 }, () => {
  it('limits failures per address: one address cannot try many emails, and is then refused before any hash', async () => {
    const browser = browserAt('10.3.0.1');
    const form = await openForm(browser);
    for (let i = 0; i < 20; i++) {
      const wrong = await login(browser, form, { email: `nobody-${i}@example.com`, password: 'guess' });
      expect(wrong.status, `try ${i}`).toBe(401);
    }
    const refused = await login(browser, form, ALICE);
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('from your network');
    // Another address is not concerned.
    const other = browserAt('10.3.0.2');
    expect((await login(other, await openForm(other), ALICE)).callback).not.toBeNull();
  });

  it('a locked email is locked for a known device too (its cookie skips the second factor only), and lets its owner in with a mailed code', async () => {
    const known = browserAt('10.4.0.1');
    expect((await login(known, await openForm(known), ALICE)).callback).not.toBeNull();

    const attacker = browserAt('10.4.0.2');
    const attackForm = await openForm(attacker);
    for (let i = 0; i < 10; i++) expect((await login(attacker, attackForm, { email: ALICE.email, password: `guess-${i}` })).status).toBe(401);
    const stillLocked = await login(attacker, attackForm, ALICE);
    expect(stillLocked.status).toBe(429);

    // The known browser, from its own address: a cookie (stolen or not) buys no more guesses.
    const lockedToo = await login(known, await openForm(known), ALICE);
    expect(lockedToo.status).toBe(429);
    expect(lockedToo.body).toContain('value="email-code"');

    // A new browser is refused, offered a code by email, and gets in with it and the password.
    const fresh = browserAt('10.4.0.3');
    const form = await openForm(fresh);
    const offered = await login(fresh, form, ALICE);
    expect(offered.status).toBe(429);
    expect(offered.body).toContain('value="email-code"');
    const before = smtp.mails.length;
    const mailed = await submit(fresh, form, { action: 'email-code', email: ALICE.email });
    expect(mailed.status).toBe(200);
    expect(mailed.body).toMatch(/name="code"/);
    const mail = await smtp.waitFor('alice@example.com', before);
    const code = /sign-in code is (\d{6})/.exec(mail.data)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect((await login(fresh, form, ALICE, { code: '000000' })).status).toBe(401);
    // A wrong code voids nothing until 5 tries: the mailed one still works, once.
    expect((await login(fresh, form, ALICE, { code: code! })).callback).not.toBeNull();
  });

  it('holds the per-email limit against parallel tries: past it, 429 before any hash', async () => {
    const browser = browserAt('10.7.0.1');
    const form = await openForm(browser);
    const statuses = await Promise.all(
      Array.from({ length: 18 }, async (_, i) => {
        const response = await browser.postForm(form, { action: 'login', email: 'erin@example.com', password: `guess-${i}` });
        await response.body?.cancel();
        return response.status;
      }),
    );
    expect(statuses.filter((s) => s === 401), statuses.join(',')).toHaveLength(10);
    expect(statuses.filter((s) => s === 429), statuses.join(',')).toHaveLength(8);
    const owner = browserAt('10.7.0.2');
    expect((await login(owner, await openForm(owner), { email: 'erin@example.com', password: ALICE.password })).status).toBe(429);
  });

  it('bounds the password hashes running at once: a burst beyond the queue is refused with 503 at once', async () => {
    // Two emails, 10 tries each reaching the hash (the per-email limit): more than the 2 running
    // and 16 waiting. Erin's failures of the test above are forgotten, as 15 minutes would.
    await gw.gateway.runtime.store.del('gw:oauth:sign-in:failures:email:erin@example.com');
    const browser = browserAt('10.5.0.1');
    const form = await openForm(browser);
    const emails = ['dora@example.com', 'erin@example.com'];
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const response = await browser.request(form, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.5.1.${i}` },
          body: new URLSearchParams({ action: 'login', email: emails[i % 2]!, password: `guess-${i}` }).toString(),
        });
        await response.body?.cancel();
        return response.status;
      }),
    );
    const count = (status: number) => statuses.filter((s) => s === status).length;
    expect(count(503), statuses.join(',')).toBeGreaterThanOrEqual(20 - 2 - 16);
    // A try the gate refused computed no hash, so it is not a failure: at most 10 per email are.
    expect(count(401), statuses.join(',')).toBeLessThanOrEqual(20);
    expect(count(401) + count(429) + count(503), statuses.join(',')).toBe(40);
  });
});
