/**
 * How a management change reaches the other instances without putting a secret on the Redis bus.
 * The bus carries only the new version (a digest of the file and the secrets); the content itself
 * (gateway.yaml may hold clear credentials, the secrets file holds provider keys) is kept in one
 * state-store entry sealed with AES-256-GCM under a key derived from GATEWAY_MASTER_KEY, which the
 * instances share and Redis never sees. An instance whose own file already has that version (a
 * shared file) just reloads it; one without the master key cannot open the entry, so it follows
 * only through a shared file. Each version also has a number, above the one it was made on
 * (shared-versions.ts), so an instance can tell a newer version from one it already has.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Secrets } from '../secrets.ts';
import type { StateStore } from '../../store/types.ts';

/** The sealed content of the latest change (the store adds its prefix). */
export const CONFIG_ENTRY_KEY = 'gw:config:current';

/** What a follower needs to apply a change: the file text and the whole secrets file. */
export interface ConfigContent {
  text: string;
  secrets: Secrets;
}

/** The version of a config: one digest over the file and the secrets, so a key rotation that leaves the YAML alone is a new version too. */
export function configVersion(content: ConfigContent): string {
  const secrets = Object.entries(content.secrets).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(content.text).update('\0').update(JSON.stringify(secrets)).digest('hex');
}

function sealingKey(masterKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, 'llm-gateway', 'config-sync/v1', 32));
}

/** Seals `content` for the store: `version.iv.tag.ciphertext` (base64url), the version bound as associated data. */
export function sealConfig(masterKey: string, version: string, content: ConfigContent): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(masterKey), iv);
  cipher.setAAD(Buffer.from(version));
  const body = Buffer.concat([cipher.update(JSON.stringify(content), 'utf8'), cipher.final()]);
  return [version, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Opens a sealed entry; null when it is malformed or was sealed under another master key. */
export function openConfig(masterKey: string, sealed: string): { version: string; content: ConfigContent } | null {
  const [version, iv, tag, body] = sealed.split('.');
  if (!version || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(masterKey), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(version));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    return { version, content: JSON.parse(text) as ConfigContent };
  } catch {
    return null;
  }
}

/** The latest shared version: its number, its digest, and its content when this instance can open it. */
export interface SharedVersion {
  seq: number;
  version: string;
  content: ConfigContent | null;
}

/**
 * Stores version `seq` of the config: `<seq>-<digest>`, sealed with the content (the number bound
 * as associated data) when there is a master key; without one, followers need a shared file.
 */
export async function shareConfig(store: StateStore, masterKey: string | undefined, seq: number, version: string, content: ConfigContent): Promise<void> {
  const head = `${seq}-${version}`;
  await store.set(CONFIG_ENTRY_KEY, masterKey ? sealConfig(masterKey, head, content) : head);
}

/** The latest shared version (content null when sealed under another master key, or none), or null when there is none. */
export async function sharedConfig(store: StateStore, masterKey: string | undefined): Promise<SharedVersion | null> {
  const entry = await store.get(CONFIG_ENTRY_KEY);
  const head = /^(\d+)-([0-9a-f]{64})(?:\.|$)/.exec(entry ?? '');
  if (!entry || !head) return null;
  const opened = masterKey && entry.length > head[0].length ? openConfig(masterKey, entry) : null;
  return { seq: Number(head[1]), version: head[2]!, content: opened?.content ?? null };
}
