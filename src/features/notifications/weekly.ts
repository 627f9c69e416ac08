/**
 * The weekly report (`email_weekly_report`): for each account that enabled it, a summary of the
 * previous week (Monday to Sunday, in the account's timezone): requests, tokens, cost and the
 * top models, from the same statistics the API serves.
 *
 * A job checks hourly (unref'd timer); the first check of a new week mails last week's report.
 * Once per account and week, even with several instances: a marker key
 * (`gw:notify:<account>:weekly:<monday>`) is taken with an atomic increment before sending.
 */
import { emailTexts } from '../../i18n/emails.ts';
import { languageOf } from '../../i18n/language.ts';
import { costCurrency } from '../../config/currency.ts';
import type { LogStore } from '../logs/types.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { costStats, modelStats, usageStats } from '../statistics/queries.ts';
import { localDate } from '../../kernel/time.ts';
import type { Mailer } from './mailer.ts';
import { startPeriodic } from '../../kernel/periodic.ts';

const DAY = 86_400_000;
const MARKER_TTL_MS = 30 * DAY;

export interface WeeklyReports {
  /** Sends the reports due at `now`; resolves with the accounts mailed. */
  runOnce(now?: number): Promise<string[]>;
  stop(): Promise<void>;
}

/** The Monday..Sunday before the week containing `today` (YYYY-MM-DD dates). */
export function previousWeek(today: string): { start: string; end: string } {
  const t = Date.parse(`${today}T00:00:00Z`);
  const weekday = (new Date(t).getUTCDay() + 6) % 7; // Monday = 0
  const monday = t - weekday * DAY;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { start: iso(monday - 7 * DAY), end: iso(monday - DAY) };
}

export function startWeeklyReports(
  runtime: Runtime,
  store: () => LogStore | undefined,
  mailer: Mailer,
  logger: Logger,
  intervalMs = 3_600_000,
): WeeklyReports {

  async function report(accountId: string, email: string, now: number): Promise<boolean> {
    const reader = runtime.services.settings;
    const defaults = runtime.current().config.settings;
    const settings = reader ? await reader.get(accountId, defaults) : defaults;
    if (!settings.notifications.email_weekly_report) return false;
    const logs = store();
    if (!logs) return false;
    const tz = settings.account.timezone;
    const week = previousWeek(localDate(now, tz));
    const marker = `gw:notify:${accountId}:weekly:${week.start}`;
    if ((await runtime.store.incrBy(marker, 1)) !== 1) return false;
    await runtime.store.set(marker, '1', MARKER_TTL_MS);
    try {
      const q = { start_date: week.start, end_date: week.end, timezone: tz, group_by: 'day' as const, account_id: accountId, ...costCurrency(runtime.current().config.billing, settings.account.currency) };
      const [usage, cost, models] = await Promise.all([usageStats(logs, q), costStats(logs, q), modelStats(logs, q)]);
      const texts = emailTexts(languageOf(settings.account.language));
      const top = models.data.slice(0, 5).map((m) => texts.topModel(m.model, m.request_count, m.total_tokens, m.percentage));
      await mailer.send({
        to: email,
        subject: texts.weeklySubject(week.start, week.end),
        text: texts.weeklyText({
          start: week.start,
          end: week.end,
          timezone: tz,
          account: accountId,
          requests: usage.summary.request_count,
          tokens: usage.summary.total_tokens,
          prompt: usage.summary.prompt_tokens,
          completion: usage.summary.completion_tokens,
          cost: `${cost.summary.total_cost} ${cost.currency}`,
          top,
        }),
      });
      return true;
    } catch (error) {
      await runtime.store.del(marker);
      throw error;
    }
  }

  async function runOnce(now = Date.now()): Promise<string[]> {
    const mailed: string[] = [];
    for (const account of runtime.current().accounts.values()) {
      if (!account.email) continue;
      try {
        if (await report(account.id, account.email, now)) mailed.push(account.id);
      } catch (error) {
        logger.warn('weekly report not sent', { account: account.id, error: String(error) });
      }
    }
    return mailed;
  }

  const job = startPeriodic(() => runOnce(), {
    intervalMs,
    firstDelayMs: 10_000,
    onError: (error) => logger.warn('weekly reports failed', { error: String(error) }),
  });
  return { runOnce, stop: job.stop };
}
