/**
 * The features of the gateway, in install order: one line each, what a feature needs from the
 * ones before it passed by name. Their services merge into `runtime.services` as they install;
 * at shutdown they close in the reverse order (the log queue flushes before the log store closes,
 * after the notification jobs that read it have stopped).
 */
import type { FeatureContext, Installed } from '../http/feature.ts';
import { installAdmin } from '../features/admin/index.ts';
import { installApiDocs } from '../features/api-docs/index.ts';
import { consoleClient } from '../features/console/client.ts';
import { installConsole } from '../features/console/index.ts';
import { installGenerateContent } from '../features/generate-content/index.ts';
import { installInference } from '../features/inference/index.ts';
import { installKeys } from '../features/keys/index.ts';
import { installLogs } from '../features/logs/index.ts';
import { installMessages } from '../features/messages/index.ts';
import { installMetrics } from '../features/metrics/index.ts';
import { installModels } from '../features/models/index.ts';
import { installNotifications } from '../features/notifications/index.ts';
import { installProviderChecks } from '../features/provider-checks/index.ts';
import { installOAuth } from '../features/oauth/index.ts';
import { installResponses } from '../features/responses/index.ts';
import { installSecurity } from '../features/security/index.ts';
import { installSettings } from '../features/settings/index.ts';
import { installStatistics } from '../features/statistics/index.ts';
import { installSystem } from '../features/system/index.ts';

/**
 * Installs every feature; each one's `close` is added to `closers` as soon as it is installed, so
 * a start that fails halfway still releases what was built.
 */
export async function installFeatures(ctx: FeatureContext, closers: Array<() => unknown>): Promise<Installed[]> {
  const installed: Installed[] = [];
  const add = <T extends Installed>(feature: T): T => {
    Object.assign(ctx.runtime.services, feature.services);
    if (feature.healthProbes) ctx.runtime.services.healthProbes.push(...feature.healthProbes);
    if (feature.close) closers.push(feature.close);
    installed.push(feature);
    return feature;
  };

  add(await installSettings(ctx)); // account settings: auth, languages and notifications read them
  const logs = add(await installLogs(ctx)); // the call log: sink of the log step, source of statistics
  add(await installMetrics(ctx, logs.service));
  add(installNotifications(ctx, logs.service));
  add(installStatistics(ctx, logs.service));
  add(installKeys(ctx));
  add(installAdmin(ctx));
  add(installProviderChecks(ctx, logs.service)); // "test this provider" and provider health
  const security = add(installSecurity(ctx)); // one-time codes and trusted devices
  const oauth = add(await installOAuth(ctx, { security: security.service, firstPartyClients: [consoleClient] }));
  add(installConsole(ctx, oauth.provider)); // signs in through the OAuth server
  add(installResponses(ctx));
  add(installInference(ctx));
  add(installGenerateContent(ctx));
  add(installMessages(ctx)); // the Messages API (Anthropic's SDK, coding agents)
  add(installModels());
  add(installSystem());
  add(installApiDocs(ctx, installed)); // last: documents the routes of every feature above, and its own
  return installed;
}
