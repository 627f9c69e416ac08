/**
 * Notifications through a real SMTP conversation (test/smtp-server.ts): usage alerts at 80% and
 * 100% of the group quota, the low-balance alert under `balance_threshold`, each once per
 * crossing and re-armed when the figure goes back; the weekly report once per week.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogService } from '../../src/features/logs/service.ts';
import { makeRecord } from '../../src/features/logs/test-records.ts';
import type { NotificationService } from '../../src/features/notifications/service.ts';
import { DEMO_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';
import { startSmtpServer, type SmtpServer } from '../smtp-server.ts';

const OTHER_KEY = 'sk-bf-test-other-1111111111111111111111111111';
const QUOTA_KEY = 'gw:quota:group:default';
let smtp: SmtpServer;
let mock: MockUpstream;
let gw: TestGateway;

beforeAll(async () => {
  smtp = await startSmtpServer();
  mock = await startMockUpstream();
  gw = await startTestGateway('notifications.yaml', { MOCK_URL: `${mock.url}/v1`, SMTP_URL: smtp.url });
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
  await smtp?.close();
});

const notifications = () => gw.gateway.runtime.services.notifications as NotificationService;

/** Sets the group's used tokens to `used`. */
async function setUsed(used: number) {
  const store = gw.gateway.runtime.store;
  const [now = 0] = await store.getCounters([QUOTA_KEY]);
  await store.incrBy(QUOTA_KEY, used - now);
}

/** One call with `key`, then waits for the alert checks it triggered. */
async function callAndSettle(key = DEMO_KEY) {
  await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await new Promise((r) => setTimeout(r, 20)); // the log step runs after the last byte
  await notifications().idle();
}

describe('notifications', () => {
  it('sends nothing while alerts are off', async () => {
    await setUsed(990);
    await callAndSettle();
    expect(smtp.messages).toHaveLength(0);
  });

  it('mails the usage alert once when usage crosses 80%, then at 100%', async () => {
    const res = await fetch(`${gw.url}/v1/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notifications: { email_usage_alert: true } }),
    });
    expect(res.status).toBe(200);
    await setUsed(700);
    await callAndSettle();
    expect(smtp.messages).toHaveLength(0);
    await setUsed(850);
    await callAndSettle();
    await callAndSettle();
    await callAndSettle(OTHER_KEY); // same group, alerts off for that account
    const [mail] = await smtp.waitFor(1);
    expect(smtp.messages).toHaveLength(1);
    expect(mail!.from).toBe('gateway@example.com');
    expect(mail!.to).toEqual(['demo@example.com']);
    expect(mail!.header('subject')).toContain('80%');
    // 850 plus the few tokens of the calls since (the quota step counts them).
    expect(mail!.data).toMatch(/used 85\d of the 1000 tokens of group Default/);
    await setUsed(1000);
    await callAndSettle();
    await callAndSettle();
    await smtp.waitFor(2);
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.messages[1]!.header('subject')).toMatch(/Quota used up/);
  });

  it('re-arms after the quota is reset', async () => {
    await setUsed(10);
    await callAndSettle();
    await setUsed(900);
    await callAndSettle();
    await smtp.waitFor(3);
    expect(smtp.messages).toHaveLength(3);
    expect(smtp.messages[2]!.header('subject')).toContain('80%');
  });

  it('mails the low-balance alert once when the remaining quota falls below the threshold', async () => {
    await fetch(`${gw.url}/v1/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notifications: { email_usage_alert: false, email_low_balance: true, balance_threshold: 100 } }),
    });
    await setUsed(880); // balance 120
    await callAndSettle();
    expect(smtp.messages).toHaveLength(3);
    await setUsed(950); // balance 50
    await callAndSettle();
    await callAndSettle();
    await smtp.waitFor(4);
    expect(smtp.messages).toHaveLength(4);
    expect(smtp.messages[3]!.header('subject')).toMatch(/^Low balance: 4\d tokens left$/);
  });

  it('sends the weekly report once per week with last week\'s figures', async () => {
    await fetch(`${gw.url}/v1/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notifications: { email_low_balance: false, email_weekly_report: true } }),
    });
    const logs = gw.gateway.runtime.services.logs as LogService;
    const demo = { account_id: 'demo', api_key_id: 'demo-key', api_key_name: 'Demo key' };
    await logs.store.insertBatch([
      // Week of Monday 2025-03-03 .. Sunday 2025-03-09 (UTC).
      makeRecord({ id: 'log_w1', ...demo, created_at: Date.parse('2025-03-03T08:00:00Z'), model: 'gpt-4o', request_tokens: 100, response_tokens: 200, input_cost: '0.5', output_cost: '3' }),
      makeRecord({ id: 'log_w2', ...demo, created_at: Date.parse('2025-03-09T23:00:00Z'), model: 'gpt-4o-mini', request_tokens: 10, response_tokens: 20, input_cost: '0.01', output_cost: '0.04' }),
      // The week after: not in the report.
      makeRecord({ id: 'log_w3', ...demo, created_at: Date.parse('2025-03-10T01:00:00Z'), model: 'gpt-4o', request_tokens: 5000, response_tokens: 5000 }),
    ]);
    const now = Date.parse('2025-03-12T09:00:00Z');
    expect(await notifications().weekly.runOnce(now)).toEqual(['demo']);
    expect(await notifications().weekly.runOnce(now)).toEqual([]);
    await smtp.waitFor(5);
    const report = smtp.messages[4]!;
    expect(report.to).toEqual(['demo@example.com']);
    expect(report.header('subject')).toBe('Your weekly usage report 2025-03-03 to 2025-03-09');
    expect(report.data).toContain('Requests: 2');
    expect(report.data).toContain('Tokens: 330 (prompt 110, completion 220)');
    expect(report.data).toContain('Cost: 3.55 CNY');
  });
});
