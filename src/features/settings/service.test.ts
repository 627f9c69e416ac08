import { describe, expect, it } from 'vitest';
import type { AccountSettings } from '../../config/types.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { createSettingsService, settingsKey } from './service.ts';
import { validateSettingsPatch } from './validate.ts';

const logger = { info: () => {}, warn: () => {}, error: () => {} };
const DEFAULTS: AccountSettings = {
  account: { timezone: 'UTC', language: 'en', currency: 'CNY' },
  notifications: { email_usage_alert: false, email_low_balance: false, email_weekly_report: false, balance_threshold: 0 },
  api: { default_model: null, default_temperature: 0.7, stream_by_default: false },
  security: { ip_whitelist_enabled: false, allowed_ips: [], request_logging: true },
};

describe('settings service', () => {
  it('stores only the account changes; unset fields follow the configured defaults', async () => {
    const store = createMemoryStore();
    const svc = await createSettingsService(store, logger);
    await svc.update('a', validateSettingsPatch({ account: { timezone: 'Asia/Tokyo' } }), DEFAULTS);
    expect(JSON.parse((await store.get(settingsKey('a')))!)).toEqual({ account: { timezone: 'Asia/Tokyo' } });
    const changedDefaults = { ...DEFAULTS, account: { ...DEFAULTS.account, currency: 'EUR' } };
    expect((await svc.get('a', changedDefaults)).account).toEqual({ timezone: 'Asia/Tokyo', language: 'en', currency: 'EUR' });
    expect(await svc.get('b', DEFAULTS)).toBe(DEFAULTS);
    await svc.close();
  });

  it('serialises concurrent partial updates of one account', async () => {
    const svc = await createSettingsService(createMemoryStore(), logger);
    await Promise.all([
      svc.update('a', { api: { stream_by_default: true } }, DEFAULTS),
      svc.update('a', { api: { default_temperature: 1 } }, DEFAULTS),
      svc.update('a', { security: { allowed_ips: ['10.0.0.1'] } }, DEFAULTS),
    ]);
    const s = await svc.get('a', DEFAULTS);
    expect(s.api).toEqual({ default_model: null, default_temperature: 1, stream_by_default: true });
    expect(s.security.allowed_ips).toEqual(['10.0.0.1']);
    await svc.close();
  });

  it('carries quota usage before a new time zone is written, and follows up once it is announced and later', async () => {
    const store = createMemoryStore();
    const events: string[] = [];
    const written = async () => JSON.parse((await store.get(settingsKey('a'))) ?? '{}').account?.timezone ?? 'unset';
    const svc = await createSettingsService(store, logger, {
      lateFollowUpMs: 30,
      async onTimeZoneChange(account, from, to) {
        events.push(`carry ${account} ${from}->${to} while ${await written()}`);
        return async () => void events.push(`follow-up ${to} while ${await written()}`);
      },
    });
    await svc.update('a', { account: { timezone: 'Asia/Tokyo' } }, DEFAULTS);
    expect(events).toEqual(['carry a UTC->Asia/Tokyo while unset', 'follow-up Asia/Tokyo while Asia/Tokyo']);
    await svc.update('a', { account: { language: 'zh' } }, DEFAULTS);
    await svc.update('a', { account: { timezone: 'Asia/Tokyo' } }, DEFAULTS);
    expect(events).toHaveLength(2); // no change of zone, nothing to carry
    await new Promise((r) => setTimeout(r, 60));
    expect(events).toHaveLength(3); // the late follow-up
    await svc.update('a', { account: { timezone: 'UTC' } }, DEFAULTS);
    await svc.update('a', { account: { timezone: 'Europe/Paris' } }, DEFAULTS);
    // A pending late follow-up runs before the next change's carry, never after it.
    expect(events.slice(3)).toEqual([
      'carry a Asia/Tokyo->UTC while Asia/Tokyo', 'follow-up UTC while UTC',
      'follow-up UTC while UTC', 'carry a UTC->Europe/Paris while UTC', 'follow-up Europe/Paris while Europe/Paris',
    ]);
    await svc.close();
  });

  it('another instance drops its cached copy when a change is published', async () => {
    const store = createMemoryStore();
    const one = await createSettingsService(store, logger);
    const two = await createSettingsService(store, logger, { cacheTtlMs: 3_600_000 });
    expect((await two.get('a', DEFAULTS)).account.language).toBe('en');
    await one.update('a', { account: { language: 'de' } }, DEFAULTS);
    await new Promise((r) => setImmediate(r));
    expect((await two.get('a', DEFAULTS)).account.language).toBe('de');
    await one.close();
    await two.close();
  });
});
