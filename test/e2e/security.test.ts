/**
 * /v1/security/* end to end: email codes through a real (tiny) SMTP server, SMS codes through a
 * local webhook, TOTP enrolment with otpauth, and the code rules (wrong, expired, voided, single use).
 */
import { createServer, type Server } from 'node:http';
import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SecurityService } from '../../src/features/security/service.ts';
import { recordingLogger, startTestGateway, MASTER_KEY, type TestGateway } from '../_setup.ts';
import { startSmtpCapture, subjectOf, type SmtpCapture } from '../smtp-capture.ts';

const ALICE_KEY = 'sk-bf-sec-alice-0000000000000000000000000000';
const BOB_KEY = 'sk-bf-sec-bob-00000000000000000000000000000';

interface SmsHook {
  url: string;
  messages: Array<{ to: string; message: string }>;
  status: number;
  close(): Promise<void>;
}

async function startSmsHook(): Promise<SmsHook> {
  const hook = { messages: [] as Array<{ to: string; message: string }>, status: 200 } as SmsHook;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.headers['content-type']?.startsWith('application/json')) hook.messages.push(JSON.parse(body));
      res.writeHead(hook.status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/sms`;
  hook.close = () => new Promise((resolve) => server.close(() => resolve()));
  return hook;
}

const codeIn = (text: string) => /verification code is (\d{6})/.exec(text)?.[1];

describe('security verification', () => {
  let gw: TestGateway;
  let smtp: SmtpCapture;
  let sms: SmsHook;
  let security: SecurityService;
  const logger = recordingLogger();

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    sms = await startSmsHook();
    gw = await startTestGateway('security.yaml', { SMTP_URL: smtp.url, SMS_URL: sms.url }, { logger });
    security = gw.gateway.runtime.services.security as SecurityService;
  });
  afterAll(async () => {
    await gw?.close();
    await smtp?.close();
    await sms?.close();
  });
  afterEach(() => {
    security.now = () => Date.now();
  });

  async function call(method: string, path: string, key: string, body?: unknown) {
    const response = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  }

  /** Move the service clock forward (codes, resend interval and TOTP all read it). */
  function advance(ms: number) {
    const base = security.now();
    const start = Date.now();
    security.now = () => base + ms + (Date.now() - start);
  }

  it('starts with every flag off and no trusted devices', async () => {
    const status = await call('GET', '/v1/security/status', ALICE_KEY);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      email_verified: false,
      phone_verified: false,
      two_factor_enabled: false,
      two_factor_method: null,
      login_alerts_enabled: false,
      trusted_devices: [],
      recovery_codes_remaining: 0,
    });
  });

  it('mails a 6-digit code, refuses a wrong one, accepts the right one once and sets email_verified', async () => {
    const before = smtp.mails.length;
    const sent = await call('POST', '/v1/security/send-code', ALICE_KEY, { type: 'email', recipient: 'alice.verify@example.com' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, type: 'email', recipient: 'a***@example.com' });
    const expiresIn = Date.parse(sent.body.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);

    const mail = await smtp.waitFor('alice.verify@example.com', before);
    expect(mail.from).toBe('no-reply@gateway.test');
    const code = codeIn(mail.data)!;
    expect(code).toMatch(/^\d{6}$/);

    // Only a salted hash is stored.
    const stored = await gw.gateway.runtime.store.get('gw:sec:code:alice:email');
    expect(stored).toBeTruthy();
    expect(stored).not.toContain(code);

    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'email', code: wrongCode });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual({ success: false, verified: false });

    const ok = await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'email', code });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, verified: true });
    expect(Number.isNaN(Date.parse(ok.body.expires_at))).toBe(false);

    const again = await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'email', code });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('code_expired');

    const status = await call('GET', '/v1/security/status', ALICE_KEY);
    expect(status.body).toMatchObject({ email_verified: true, phone_verified: false });
    // Bob's account is untouched.
    expect((await call('GET', '/v1/security/status', BOB_KEY)).body.email_verified).toBe(false);
  });

  it('limits send-code to one per 30 seconds per account and type, with Retry-After', async () => {
    const first = await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob@example.com' });
    expect(first.status).toBe(200);
    const second = await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob@example.com' });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another type is not limited by it.
    expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'sms', recipient: '+4915100000001' })).status).toBe(200);
    advance(31_000);
    expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob@example.com' })).status).toBe(200);
  });

  it('a new code replaces the previous one', async () => {
    advance(5 * 60_000);
    const before = smtp.mails.length;
    expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob.replace@example.com' })).status).toBe(200);
    const oldCode = codeIn((await smtp.waitFor('bob.replace@example.com', before)).data)!;
    advance(120_000);
    const next = smtp.mails.length;
    expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob.replace@example.com' })).status).toBe(200);
    const newCode = codeIn((await smtp.waitFor('bob.replace@example.com', next)).data)!;
    if (oldCode !== newCode) {
      const old = await call('POST', '/v1/security/verify', BOB_KEY, { type: 'email', code: oldCode });
      expect(old.body).toEqual({ success: false, verified: false });
    }
    expect((await call('POST', '/v1/security/verify', BOB_KEY, { type: 'email', code: newCode })).body.verified).toBe(true);
  });

  it('sends SMS codes to the webhook as {to, message} and sets phone_verified', async () => {
    advance(10 * 60_000);
    const before = sms.messages.length;
    const sent = await call('POST', '/v1/security/send-code', ALICE_KEY, { type: 'sms', recipient: '+49 151 2345-6789' });
    expect(sent.status).toBe(200);
    expect(sms.messages.length).toBe(before + 1);
    const message = sms.messages.at(-1)!;
    expect(message.to).toBe('+4915123456789');
    const code = codeIn(message.message)!;
    expect(code).toMatch(/^\d{6}$/);
    const ok = await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'sms', code });
    expect(ok.body).toMatchObject({ success: true, verified: true });
    expect((await call('GET', '/v1/security/status', ALICE_KEY)).body.phone_verified).toBe(true);
  });

  it("writes the code email and SMS in the account's language", async () => {
    expect((await call('PUT', '/v1/settings', BOB_KEY, { account: { language: 'zh-CN' } })).status).toBe(200);
    try {
      advance(31_000); // past any resend interval left by earlier tests
      const sms_before = sms.messages.length;
      expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'sms', recipient: '+8613800000000' })).status).toBe(200);
      expect(sms.messages.slice(sms_before).at(-1)!.message).toMatch(/^您的验证码是 \d{6}，10 分钟内有效。$/);
      const before = smtp.mails.length;
      expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob.zh@example.com' })).status).toBe(200);
      const mail = await smtp.waitFor('bob.zh@example.com', before);
      expect(subjectOf(mail.data)).toBe('您的验证码');
    } finally {
      await call('PUT', '/v1/settings', BOB_KEY, { account: { language: 'en' } });
    }
    advance(62_000);
    const before = smtp.mails.length;
    expect((await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob.en@example.com' })).status).toBe(200);
    expect(subjectOf((await smtp.waitFor('bob.en@example.com', before)).data)).toBe('Your verification code');
  });

  it('voids a code after 5 wrong tries: even the right code is then refused with code_expired', async () => {
    advance(20 * 60_000);
    await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'sms', recipient: '+4915100000002' });
    const code = codeIn(sms.messages.at(-1)!.message)!;
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      const wrong = await call('POST', '/v1/security/verify', BOB_KEY, { type: 'sms', code: wrongCode });
      expect(wrong.status).toBe(200);
      expect(wrong.body).toEqual({ success: false, verified: false });
    }
    const voided = await call('POST', '/v1/security/verify', BOB_KEY, { type: 'sms', code });
    expect(voided.status).toBe(400);
    expect(voided.body.error).toMatchObject({ code: 'code_expired', type: 'invalid_request_error' });
    expect((await call('GET', '/v1/security/status', BOB_KEY)).body.phone_verified).toBe(false);
  });

  it('refuses a code after 10 minutes with code_expired', async () => {
    advance(30 * 60_000);
    const before = smtp.mails.length;
    await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'email', recipient: 'bob.late@example.com' });
    const code = codeIn((await smtp.waitFor('bob.late@example.com', before)).data)!;
    advance(10 * 60_000 + 1000);
    const late = await call('POST', '/v1/security/verify', BOB_KEY, { type: 'email', code });
    expect(late.status).toBe(400);
    expect(late.body.error.code).toBe('code_expired');
  });

  it('enrols TOTP: send-code answers an otpauth URL, a valid TOTP enables 2FA', async () => {
    const sent = await call('POST', '/v1/security/send-code', ALICE_KEY, { type: 'totp' });
    expect(sent.status).toBe(200);
    expect(sent.body.success).toBe(true);
    expect(sent.body.otpauth_url).toMatch(/^otpauth:\/\/totp\//);
    const totp = URI.parse(sent.body.otpauth_url) as TOTP;
    expect(totp.digits).toBe(6);

    const wrongCode = String((Number(totp.generate()) + 500_000) % 1_000_000).padStart(6, '0');
    const wrong = await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'totp', code: wrongCode });
    expect(wrong.body).toEqual({ success: false, verified: false });
    expect((await call('GET', '/v1/security/status', ALICE_KEY)).body.two_factor_enabled).toBe(false);

    const code = totp.generate();
    const ok = await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'totp', code });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, verified: true });
    expect((await call('GET', '/v1/security/status', ALICE_KEY)).body).toMatchObject({ two_factor_enabled: true, two_factor_method: 'totp' });

    // Enabled: another enrolment is refused, and a used TOTP is not accepted twice.
    const twice = await call('POST', '/v1/security/send-code', ALICE_KEY, { type: 'totp' });
    expect(twice.status).toBe(409);
    expect((await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'totp', code })).body.verified).toBe(false);
    // A code of the next time step (the secret is the enrolled one) verifies.
    const secret = Secret.fromBase32(totp.secret.base32);
    const next = TOTP.generate({ secret, timestamp: Date.now() + 30_000 });
    expect((await call('POST', '/v1/security/verify', ALICE_KEY, { type: 'totp', code: next })).body.verified).toBe(true);
  });

  it('answers verify without a pending code with code_expired', async () => {
    const none = await call('POST', '/v1/security/verify', BOB_KEY, { type: 'totp', code: '123456' });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('code_expired');
  });

  it('names the offending field in validation errors', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/v1/security/send-code', {}, 'type'],
      ['/v1/security/send-code', { type: 'fax', recipient: 'x' }, 'type'],
      ['/v1/security/send-code', { type: 'email' }, 'recipient'],
      ['/v1/security/send-code', { type: 'email', recipient: 'not-an-email' }, 'recipient'],
      ['/v1/security/send-code', { type: 'sms', recipient: 'call me' }, 'recipient'],
      ['/v1/security/verify', { type: 'email' }, 'code'],
      ['/v1/security/verify', { type: 'email', code: 'abcdef' }, 'code'],
      ['/v1/security/verify', { code: '123456' }, 'type'],
    ];
    for (const [path, body, param] of cases) {
      const response = await call('POST', path, BOB_KEY, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.param, JSON.stringify(body)).toBe(param);
    }
  });

  it('needs a credential', async () => {
    const response = await fetch(`${gw.url}/v1/security/status`);
    expect(response.status).toBe(401);
  });

  it('answers 503 when the SMS webhook fails, and does not count it against the resend interval', async () => {
    advance(40 * 60_000);
    sms.status = 500;
    try {
      const failed = await call('POST', '/v1/security/send-code', MASTER_KEY, { type: 'sms', recipient: '+4915100000003' });
      expect(failed.status).toBe(503);
      expect(failed.body.error.code).toBe('delivery_failed');
    } finally {
      sms.status = 200;
    }
    expect((await call('POST', '/v1/security/send-code', MASTER_KEY, { type: 'sms', recipient: '+4915100000003' })).status).toBe(200);
  });

  it('limits authenticator codes once 2FA is on: after 5 wrong tries even the right code is refused (429)', async () => {
    const enrol = await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'totp' });
    const totp = URI.parse(enrol.body.otpauth_url) as TOTP;
    expect((await call('POST', '/v1/security/verify', BOB_KEY, { type: 'totp', code: totp.generate({ timestamp: security.now() }) })).body.verified).toBe(true);

    const right = totp.generate({ timestamp: security.now() + 30_000 });
    const wrongCode = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      expect((await call('POST', '/v1/security/verify', BOB_KEY, { type: 'totp', code: wrongCode })).body).toEqual({ success: false, verified: false });
    }
    const locked = await call('POST', '/v1/security/verify', BOB_KEY, { type: 'totp', code: right });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it("lets an admin reset a member's second factor (a lost phone), logged with who did it; members may not", async () => {
    // bob: 2FA on and locked by the test above.
    expect((await call('GET', '/v1/security/status', BOB_KEY)).body.two_factor_enabled).toBe(true);
    const refused = await call('POST', '/v1/admin/users/bob/two-factor/reset', ALICE_KEY);
    expect([refused.status, refused.body.error.type]).toEqual([403, 'permission_error']);
    expect((await call('GET', '/v1/security/status', BOB_KEY)).body.two_factor_enabled).toBe(true);
    const unknown = await call('POST', '/v1/admin/users/nobody/two-factor/reset', MASTER_KEY);
    expect([unknown.status, unknown.body.error.type]).toEqual([404, 'not_found_error']);

    const reset = await call('POST', '/v1/admin/users/bob/two-factor/reset', MASTER_KEY);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ two_factor_enabled: false, two_factor_method: null });
    expect((await call('GET', '/v1/security/status', BOB_KEY)).body).toMatchObject({ two_factor_enabled: false, two_factor_method: null });
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'info', message: 'two-factor reset by an admin', fields: expect.objectContaining({ account: 'bob', by: 'admin' }) }));
    // bob enrols a new authenticator, the lock of the old one lifted.
    const enrol = await call('POST', '/v1/security/send-code', BOB_KEY, { type: 'totp' });
    expect(enrol.status).toBe(200);
    const totp = URI.parse(enrol.body.otpauth_url) as TOTP;
    expect((await call('POST', '/v1/security/verify', BOB_KEY, { type: 'totp', code: totp.generate({ timestamp: security.now() }) })).body.verified).toBe(true);
  });
});

describe('security verification without smtp/sms config', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('security-unconfigured.yaml');
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers 503 with a message naming the missing config', async () => {
    for (const [type, recipient, code] of [
      ['email', 'a@example.com', 'email_not_configured'],
      ['sms', '+4915100000004', 'sms_not_configured'],
    ]) {
      const response = await fetch(`${gw.url}/v1/security/send-code`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ALICE_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type, recipient }),
      });
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(body.error.message).toContain(type === 'email' ? 'smtp' : 'sms');
    }
  });

  it('still enrols TOTP (it needs no delivery)', async () => {
    const response = await fetch(`${gw.url}/v1/security/send-code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'totp' }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { otpauth_url: string }).otpauth_url).toMatch(/^otpauth:/);
  });
});
