/**
 * The notification service: mails usage / low-balance alerts after logged calls and the weekly
 * report, through `smtp:`. Without `smtp:` in gateway.yaml notifications are off (logged once).
 */
import type { LogService } from '../logs/service.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { createAlertChecker, type AlertChecker } from './alerts.ts';
import { createMailer, type Mailer } from './mailer.ts';
import { startWeeklyReports, type WeeklyReports } from './weekly.ts';

export interface NotificationService {
  readonly mailer: Mailer;
  readonly alerts: AlertChecker;
  readonly weekly: WeeklyReports;
  /** Alert checks still running (tests wait on it). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function createNotificationService(
  runtime: Runtime,
  logs: LogService | undefined,
  logger: Logger,
  options: { weeklyIntervalMs?: number } = {},
): NotificationService | undefined {
  const smtp = runtime.current().config.smtp;
  if (!smtp) {
    logger.info('notifications off: no smtp configured');
    return undefined;
  }
  const mailer = createMailer(smtp);
  const alerts = createAlertChecker(runtime, mailer, logger);
  const weekly = startWeeklyReports(runtime, () => logs?.store, mailer, logger, options.weeklyIntervalMs);
  const pending = new Set<Promise<void>>();
  logs?.onRecord((record) => {
    const job = alerts.check(record).catch((error) => logger.warn('alert check failed', { error: String(error) }));
    pending.add(job);
    void job.finally(() => pending.delete(job));
  });
  return {
    mailer,
    alerts,
    weekly,
    async idle() {
      while (pending.size) await Promise.all(pending);
    },
    async close() {
      await weekly.stop();
      await Promise.all(pending);
      mailer.close();
    },
  };
}
