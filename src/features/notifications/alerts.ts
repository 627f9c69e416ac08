/**
 * Usage and balance alerts, checked after each logged call of an account that enabled them.
 *
 * Definitions (the spec leaves them open):
 * - Usage: the tokens counted against the account's group quota (the counter of its current
 *   period, as the quota step keeps it) over the group's `quota_limit`. `email_usage_alert` mails when
 *   usage crosses 80% and again at 100%.
 * - Balance: what remains of that quota, `quota_limit - used` tokens. `email_low_balance` mails
 *   when it falls below the account's `balance_threshold` (tokens; 0 disables it).
 * Groups without a quota (`quota_limit` 0) have neither.
 *
 * De-duplication: each alert is sent once per crossing. A marker key in the state store
 * (`gw:notify:<account>:<alert>:<group>:<limit>`, taken with an atomic increment, so one
 * instance sends even with several) is cleared when the figure goes back (quota reset, limit
 * raised), which re-arms the alert for the next crossing.
 */
import { emailTexts } from '../../i18n/emails.ts';
import { languageOf } from '../../i18n/language.ts';
import type { LogRecord } from '../logs/types.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { groupBudget } from '../../quota/budgets.ts';
import type { Mailer } from './mailer.ts';

export const USAGE_THRESHOLDS = [80, 100] as const;
const MARKER_TTL_MS = 400 * 86_400_000;

const markerKey = (account: string, alert: string, group: string, limit: number) => `gw:notify:${account}:${alert}:${group}:${limit}`;

export interface AlertChecker {
  /** Checks the thresholds of the record's account; resolves when any mail is sent. */
  check(record: Pick<LogRecord, 'account_id' | 'group_id'>): Promise<void>;
}

export function createAlertChecker(runtime: Runtime, mailer: Mailer, logger: Logger): AlertChecker {
  const settingsOf = (accountId: string) => {
    const reader = runtime.services.settings;
    const defaults = runtime.current().config.settings;
    return reader ? reader.get(accountId, defaults) : Promise.resolve(defaults);
  };

  /** Sends once per crossing: true when this call took the marker and mailed. */
  async function once(key: string, crossed: boolean, mail: () => Promise<void>): Promise<void> {
    if (!crossed) {
      // Back under the threshold: re-arm (a no-op for a missing key).
      await runtime.store.del(key);
      return;
    }
    if ((await runtime.store.incrBy(key, 1)) !== 1) return;
    await runtime.store.set(key, '1', MARKER_TTL_MS);
    try {
      await mail();
    } catch (error) {
      await runtime.store.del(key); // not sent: try again on the next call
      throw error;
    }
  }

  return {
    async check({ account_id, group_id }) {
      if (!group_id) return;
      const snapshot = runtime.current();
      const group = snapshot.groups.get(group_id);
      const email = snapshot.accounts.get(account_id)?.email;
      if (!group || group.quota_limit <= 0 || !email) return;
      const { notifications, account } = await settingsOf(account_id);
      const texts = emailTexts(languageOf(account.language));
      const threshold = notifications.balance_threshold;
      const lowBalanceOn = notifications.email_low_balance && threshold > 0;
      if (!notifications.email_usage_alert && !lowBalanceOn) return;
      const [used = 0] = await runtime.store.getCounters([groupBudget(group, snapshot, Date.now()).counter.key]);
      const limit = group.quota_limit;
      const percent = (used / limit) * 100;
      const jobs: Promise<void>[] = [];
      if (notifications.email_usage_alert) {
        for (const level of USAGE_THRESHOLDS) {
          jobs.push(
            once(markerKey(account_id, `usage${level}`, group_id, limit), percent >= level, () =>
              mailer.send({
                to: email,
                subject: texts.usageSubject(level, group.name),
                text: texts.usageText(account_id, used, limit, group.name, Math.floor(percent), level >= 100),
              }),
            ),
          );
        }
      }
      if (lowBalanceOn) {
        const balance = Math.max(0, limit - used);
        jobs.push(
          once(markerKey(account_id, 'low_balance', group_id, limit), balance < threshold, () =>
            mailer.send({
              to: email,
              subject: texts.lowBalanceSubject(balance),
              text: texts.lowBalanceText(group.name, balance, threshold),
            }),
          ),
        );
      }
      const results = await Promise.allSettled(jobs);
      for (const r of results) if (r.status === 'rejected') logger.warn('alert mail not sent', { account: account_id, error: String(r.reason) });
    },
  };
}
