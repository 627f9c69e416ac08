/**
 * Without Redis, an account's settings and its two-factor enrolment are state, not cache: they
 * outlive a restart of the gateway on the same data directory (`state.db` there).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/kernel/logger.ts';
import { startGateway, type Started } from '../../src/server.ts';
import { api, MASTER_KEY } from '../_setup.ts';

const ALICE_KEY = 'sk-bf-sec-alice-0000000000000000000000000000';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-local-state-'));
  await cp(resolve('test/fixtures/security.yaml'), join(dir, 'gateway.yaml'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<Started> {
  return startGateway({
    logger: createLogger('silent'),
    env: { GATEWAY_CONFIG: join(dir, 'gateway.yaml'), PORT: '0', HOST: '127.0.0.1', GATEWAY_MASTER_KEY: MASTER_KEY, GATEWAY_DATA_DIR: join(dir, 'data'), REDIS_URL: '',
      SMTP_URL: 'smtp://127.0.0.1:9', SMS_URL: 'http://127.0.0.1:9/sms' },
    watch: false,
  });
}

async function stop(started: Started) {
  await started.server.close(true);
  await started.gateway.close();
}

it('keeps settings and a TOTP enrolment across a restart', async () => {
  const first = await start();
  const settings = { account: { timezone: 'Asia/Tokyo', language: 'en' }, security: { allowed_ips: ['127.0.0.1/32'] } };
  const put = await api(first, 'PUT', '/v1/settings', settings, ALICE_KEY);
  expect(put.body).toMatchObject({ account: settings.account });
  const sent = await api(first, 'POST', '/v1/security/send-code', { type: 'totp' }, ALICE_KEY);
  const totp = URI.parse(sent.body.otpauth_url) as TOTP;
  expect((await api(first, 'POST', '/v1/security/verify', { type: 'totp', code: totp.generate() }, ALICE_KEY)).body.verified).toBe(true);
  await stop(first);

  const second = await start();
  try {
    const after = await api(second, 'GET', '/v1/settings', undefined, ALICE_KEY);
    expect(after.body.account).toMatchObject({ timezone: 'Asia/Tokyo', language: 'en' });
    expect(after.body.security.allowed_ips).toEqual(['127.0.0.1/32']);
    const status = await api(second, 'GET', '/v1/security/status', undefined, ALICE_KEY);
    expect(status.body).toMatchObject({ two_factor_enabled: true, two_factor_method: 'totp' });
    // The enrolled secret is the one kept: another enrolment is still refused.
    expect((await api(second, 'POST', '/v1/security/send-code', { type: 'totp' }, ALICE_KEY)).status).toBe(409);
  } finally {
    await stop(second);
  }
});
