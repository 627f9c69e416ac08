/**
 * oidc-provider's adapter contract on the gateway's StateStore, so that with REDIS_URL every
 * instance sees the same authorization codes, tokens, sessions and interactions.
 *
 * Keys: `gw:oidc:<Model>:<id>` for the payloads, `gw:oidc:SessionUid:<uid>` and
 * `gw:oidc:UserCode:<code>` for the secondary lookups, `gw:oidc:GrantIndex:<grantId>` listing
 * the keys issued under a grant (for `revokeByGrantId`, used on refresh-token reuse and revocation).
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { StateStore } from './types.ts';

/** The state store key of one artefact of oidc-provider's `model` (`AccessToken`, `Grant`...). */
export const oidcKey = (model: string, id: string) => `gw:oidc:${model}:${id}`;

/** Models whose artefacts hang off a grant (same list as oidc-provider's memory adapter). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

/** A stored payload with its absolute expiry, so `consume` can keep the remaining lifetime. */
interface Envelope {
  payload: AdapterPayload;
  /** Epoch ms; null = no expiry. */
  expiresAt: number | null;
}

interface GrantIndex {
  keys: string[];
  expiresAt: number | null;
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

function parse<T>(raw: string | null): T | undefined {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

/** Remaining lifetime for `StateStore.set`: 0 = none; negative = already gone. */
const remaining = (expiresAt: number | null) => (expiresAt === null ? 0 : expiresAt - Date.now());

/**
 * One adapter per model name, as oidc-provider asks (`adapter: (name) => new StoreAdapter(name, store)`).
 * @param clockToleranceS kept a little longer than the artefact's life, as the provider tolerates clock skew.
 */
export class StoreAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly store: StateStore,
    private readonly clockToleranceS = 0,
  ) {}

  private key(id: string) {
    return oidcKey(this.model, id);
  }

  private async envelope(id: string): Promise<Envelope | undefined> {
    return parse<Envelope>(await this.store.get(this.key(id)));
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const ttlMs = typeof expiresIn === 'number' ? (expiresIn + this.clockToleranceS) * 1000 : 0;
    const expiresAt = ttlMs > 0 ? Date.now() + ttlMs : null;
    const key = this.key(id);
    await this.store.set(key, JSON.stringify({ payload, expiresAt } satisfies Envelope), ttlMs);
    if (this.model === 'Session' && typeof payload.uid === 'string') {
      await this.store.set(`gw:oidc:SessionUid:${payload.uid}`, id, ttlMs);
    }
    if (typeof payload.userCode === 'string') {
      await this.store.set(`gw:oidc:UserCode:${payload.userCode}`, id, ttlMs);
    }
    if (GRANTABLE.has(this.model) && typeof payload.grantId === 'string') {
      await this.addToGrant(payload.grantId, key, expiresAt);
    }
  }

  private async addToGrant(grantId: string, key: string, expiresAt: number | null): Promise<void> {
    const indexKey = `gw:oidc:GrantIndex:${grantId}`;
    const index = parse<GrantIndex>(await this.store.get(indexKey)) ?? { keys: [], expiresAt };
    if (!index.keys.includes(key)) index.keys.push(key);
    // The index lives as long as its longest-lived member.
    if (index.expiresAt !== null) index.expiresAt = expiresAt === null ? null : Math.max(index.expiresAt, expiresAt);
    await this.store.set(indexKey, JSON.stringify(index), Math.max(0, remaining(index.expiresAt)));
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return (await this.envelope(id))?.payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = await this.store.get(`gw:oidc:SessionUid:${uid}`);
    return id === null ? undefined : this.find(id);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = await this.store.get(`gw:oidc:UserCode:${userCode}`);
    return id === null ? undefined : this.find(id);
  }

  async consume(id: string): Promise<void> {
    const found = await this.envelope(id);
    if (!found) return;
    const ttl = remaining(found.expiresAt);
    if (found.expiresAt !== null && ttl <= 0) return;
    found.payload.consumed = epochSeconds();
    await this.store.set(this.key(id), JSON.stringify(found), ttl);
  }

  async destroy(id: string): Promise<void> {
    const found = await this.envelope(id);
    await this.store.del(this.key(id));
    if (!found) return;
    const { uid, userCode } = found.payload;
    if (this.model === 'Session' && typeof uid === 'string' && (await this.store.get(`gw:oidc:SessionUid:${uid}`)) === id) {
      await this.store.del(`gw:oidc:SessionUid:${uid}`);
    }
    if (typeof userCode === 'string' && (await this.store.get(`gw:oidc:UserCode:${userCode}`)) === id) {
      await this.store.del(`gw:oidc:UserCode:${userCode}`);
    }
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const indexKey = `gw:oidc:GrantIndex:${grantId}`;
    const index = parse<GrantIndex>(await this.store.get(indexKey));
    if (!index) return;
    await Promise.all(index.keys.map((key) => this.store.del(key)));
    await this.store.del(indexKey);
  }
}

/** The factory oidc-provider's `adapter` option takes. */
export function createOidcAdapterFactory(store: StateStore, clockToleranceS = 0) {
  return function oidcAdapter(model: string): Adapter {
    return new StoreAdapter(model, store, clockToleranceS);
  };
}
