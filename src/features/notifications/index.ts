/** Notifications: usage and low-balance alerts after logged calls, and the weekly report, by mail. */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import type { LogService } from '../logs/service.ts';
import { createNotificationService, type NotificationService } from './service.ts';

declare module '../../pipeline/services.ts' {
  interface Services {
    /** Present when `smtp:` is configured. */
    notifications?: NotificationService;
  }
}

export function installNotifications({ runtime, logger }: FeatureContext, logs: LogService): Installed {
  const notifications = createNotificationService(runtime, logs, logger);
  if (!notifications) return {};
  return { services: { notifications }, close: () => notifications.close() };
}
