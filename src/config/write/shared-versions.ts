/**
 * Where one instance stands among the config versions the instances share through the state store
 * (with REDIS_URL). A writer holds the cluster lease (lease.ts) and first brings its file up to
 * the latest shared version, so each version it publishes is made on the one before and numbered
 * above it: the numbers only grow, and a follower applies a version only when it is newer than
 * the one it has. A number is also at least the writer's clock in ms, so it keeps growing when
 * Redis loses the entry (a restart without persistence) and an instance has applied more than
 * the others.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from '../../kernel/logger.ts';
import { readSecrets, secretsPathFor } from '../secrets.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { configVersion, shareConfig, sharedConfig, type ConfigContent } from './config-sync.ts';
import type { ChangeMessage, WriteTarget } from './write-types.ts';

/** Pub/sub channel (the store adds its own prefix) carrying config changes to the other instances. */
export const CONFIG_CHANNEL = 'gw:config:changed';

export interface SharedVersions {
  /** The number of the shared version this instance's file holds, or was made from (0: none yet). */
  readonly applied: number;
  /**
   * Brings this instance's file and secrets up to the latest shared version when it has not
   * applied that one yet, then reloads. Resolves with the latest number and whether it is in force.
   */
  catchUp(): Promise<{ seq: number; ok: boolean }>;
  /**
   * Stores `content`, made on version `base`, as the next version and announces it. A failure is
   * logged, never thrown: the change is made here, and the next one carries it to the others.
   */
  publish(base: number, content: ConfigContent, revoked: readonly string[]): Promise<void>;
}

export function trackSharedVersions(target: WriteTarget, origin: string, logger: Logger): SharedVersions {
  const { config: holder, store, masterKey } = target;
  let applied = 0;

  return {
    get applied() {
      return applied;
    },

    async catchUp() {
      const shared = await sharedConfig(store, masterKey);
      if (!shared || shared.seq <= applied) return { seq: Math.max(applied, shared?.seq ?? 0), ok: true };
      const configFile = holder.file;
      const secretsFile = secretsPathFor(configFile);
      const text = await readFile(configFile, 'utf8').catch(() => null);
      const secrets = await readSecrets(secretsFile);
      // A file shared by the instances already has it: then it only needs loading.
      if (text === null || configVersion({ text, secrets }) !== shared.version) {
        const { content } = shared;
        if (!content) {
          logger.warn('cannot apply a config change from another instance: this file differs and the shared copy needs the same GATEWAY_MASTER_KEY (or share gateway.yaml)');
          return { seq: shared.seq, ok: false };
        }
        if (JSON.stringify(secrets) !== JSON.stringify(content.secrets)) {
          await writeFileAtomic(secretsFile, `${JSON.stringify(content.secrets, null, 2)}\n`, 0o600);
        }
        if (text !== content.text) {
          holder.watcher?.ignoreNextContent(content.text);
          await writeFileAtomic(configFile, content.text, await stat(configFile).then((s) => s.mode & 0o777, () => 0o644));
        }
      }
      applied = shared.seq;
      const status = await holder.reload();
      if (status.ok) logger.info('applied config change from another instance', { version: shared.version, seq: shared.seq });
      return { seq: shared.seq, ok: status.ok };
    },

    async publish(base, content, revoked) {
      const seq = Math.max(base + 1, Date.now());
      const version = configVersion(content);
      const message: ChangeMessage = { origin, version, seq, ...(revoked.length ? { revoked: [...revoked] } : {}) };
      try {
        await shareConfig(store, masterKey, seq, version, content);
        applied = seq;
        await store.publish(CONFIG_CHANNEL, JSON.stringify(message));
      } catch (error) {
        logger.warn('could not publish config change', { error: String(error) });
      }
    },
  };
}
