/**
 * oidc-provider's adapter contract on the gateway's StateStore, so that with REDIS_URL every
 * instance sees the same authorization codes, tokens, sessions and interactions.
 *
 * Keys (oidc-keys.ts): `gw:oidc:<Model>:sha256:<hash of the id>` for the payloads, since the id is
 * the bearer secret; `gw:oidc:SessionUid:<uid>` and `gw:oidc:UserCode:sha256:<hash>` for the
 * secondary lookups (holding the payload's key, never the id); `gw:oidc:GrantIndex:<grantId>`
 * listing the keys issued under a grant (for `revokeByGrantId`, used on refresh-token reuse and
 * revocation). What was stored before ids were hashed is still found, and moved on first use.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { StateStore } from './types.ts';
import {
  grantIndexKey, isOidcKey, legacyOidcKey, legacyUserCodeKey, oidcKey, payloadAtRest, payloadFound, sessionUidKey, userCodeKey,
} from './oidc-keys.ts';

export { oidcKey } from './oidc-keys.ts';

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
 * Whether the store holds an artefact of `model` with this id, in either key form, without
 * building the provider (token-verifier.ts asks before the first OAuth use).
 */
export async function holdsOidcArtefact(store: StateStore, model: string, id: string): Promise<boolean> {
  return (await store.get(oidcKey(model, id))) !== null || (await store.get(legacyOidcKey(model, id))) !== null;
}

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

  /** The stored envelope of `id`; one still under its id in clear is moved to the hashed key first. */
  private async load(id: string): Promise<Envelope | undefined> {
    return parse<Envelope>(await this.store.get(oidcKey(this.model, id))) ?? this.moveLegacy(id);
  }

  /**
   * Moves what an earlier version stored under the id in clear (and listed so in its grant index
   * and user-code lookup) to the hashed forms, with its remaining lifetime. Racing instances
   * write the same thing twice, harmlessly.
   */
  private async moveLegacy(id: string): Promise<Envelope | undefined> {
    const old = await this.readLegacy(id);
    if (!old) return undefined;
    const envelope: Envelope = { payload: payloadAtRest(this.model, old.payload), expiresAt: old.expiresAt };
    await this.write(id, envelope, remaining(old.expiresAt));
    await this.retireLegacy(id, old);
    return envelope;
  }

  private async readLegacy(id: string): Promise<Envelope | undefined> {
    const old = parse<Envelope>(await this.store.get(legacyOidcKey(this.model, id)));
    if (!old?.payload || typeof old.payload !== 'object') return undefined;
    if (old.expiresAt !== null && remaining(old.expiresAt) <= 0) return undefined;
    return old;
  }

  /** Removes the entry in clear and what named it (a grant index listing its key, a user-code lookup). */
  private async retireLegacy(id: string, old: Envelope): Promise<void> {
    const legacyKey = legacyOidcKey(this.model, id);
    await this.store.del(legacyKey);
    const { grantId, userCode } = old.payload;
    if (typeof grantId === 'string') await this.dropFromGrant(grantId, legacyKey);
    if (typeof userCode === 'string' && (await this.store.get(legacyUserCodeKey(userCode))) === id) await this.store.del(legacyUserCodeKey(userCode));
  }

  /**
   * The startup sweep's step (oidc-legacy.ts): moves the entry of `id` kept in clear. When the
   * hashed one exists already (moved on use meanwhile), that one stands and the copy only goes:
   * an older copy must not bring back a consumed refresh token. True when one was moved.
   */
  async moveFromClear(id: string): Promise<boolean> {
    if ((await this.store.get(oidcKey(this.model, id))) === null) return (await this.moveLegacy(id)) !== undefined;
    const old = await this.readLegacy(id);
    if (old) await this.retireLegacy(id, old);
    return false;
  }

  /** Stores an envelope (payload already in its at-rest form) and the lookups that lead to it. */
  private async write(id: string, envelope: Envelope, ttlMs: number): Promise<void> {
    const key = oidcKey(this.model, id);
    const { payload, expiresAt } = envelope;
    await this.store.set(key, JSON.stringify(envelope), ttlMs);
    if (this.model === 'Session' && typeof payload.uid === 'string') await this.store.set(sessionUidKey(payload.uid), key, ttlMs);
    if (typeof payload.userCode === 'string') await this.store.set(userCodeKey(payload.userCode), key, ttlMs);
    if (GRANTABLE.has(this.model) && typeof payload.grantId === 'string') await this.addToGrant(payload.grantId, key, expiresAt);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const ttlMs = typeof expiresIn === 'number' ? (expiresIn + this.clockToleranceS) * 1000 : 0;
    const expiresAt = ttlMs > 0 ? Date.now() + ttlMs : null;
    await this.write(id, { payload: payloadAtRest(this.model, payload), expiresAt }, ttlMs);
  }

  private async addToGrant(grantId: string, key: string, expiresAt: number | null): Promise<void> {
    const indexKey = grantIndexKey(grantId);
    const index = parse<GrantIndex>(await this.store.get(indexKey)) ?? { keys: [], expiresAt };
    if (!index.keys.includes(key)) index.keys.push(key);
    // The index lives as long as its longest-lived member.
    if (index.expiresAt !== null) index.expiresAt = expiresAt === null ? null : Math.max(index.expiresAt, expiresAt);
    await this.store.set(indexKey, JSON.stringify(index), Math.max(0, remaining(index.expiresAt)));
  }

  /** Takes a key off a grant's index (a legacy key names the token in clear: it must not stay listed). */
  private async dropFromGrant(grantId: string, key: string): Promise<void> {
    const indexKey = grantIndexKey(grantId);
    const index = parse<GrantIndex>(await this.store.get(indexKey));
    if (!index?.keys.includes(key)) return;
    index.keys = index.keys.filter((listed) => listed !== key);
    await this.store.set(indexKey, JSON.stringify(index), Math.max(0, remaining(index.expiresAt)));
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const found = await this.load(id);
    return found && payloadFound(found.payload, id);
  }

  /**
   * The session with this uid. Its id (the session cookie) is not stored, so the payload comes back
   * without `jti`: oidc-provider reads such a session (account, grants) and never saves it.
   */
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const ref = await this.store.get(sessionUidKey(uid));
    if (ref === null) return undefined;
    // An earlier version kept the session's id in clear here: found (and moved) by it.
    return isOidcKey(ref) ? parse<Envelope>(await this.store.get(ref))?.payload : this.find(ref);
  }

  /** The device code of a user code; like `findByUid`, without `jti` (the device flow is off). */
  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const ref = await this.store.get(userCodeKey(userCode));
    if (ref !== null) return parse<Envelope>(await this.store.get(ref))?.payload;
    const legacyId = await this.store.get(legacyUserCodeKey(userCode));
    return legacyId === null ? undefined : this.find(legacyId);
  }

  async consume(id: string): Promise<void> {
    const found = await this.load(id);
    if (!found) return;
    const ttl = remaining(found.expiresAt);
    if (found.expiresAt !== null && ttl <= 0) return;
    found.payload.consumed = epochSeconds();
    await this.store.set(oidcKey(this.model, id), JSON.stringify(found), ttl);
  }

  async destroy(id: string): Promise<void> {
    // Loading moves a legacy entry first, so only the hashed forms are left to remove.
    const found = await this.load(id);
    const key = oidcKey(this.model, id);
    await this.store.del(key);
    if (!found) return;
    const { uid, userCode } = found.payload;
    if (this.model === 'Session' && typeof uid === 'string' && (await this.store.get(sessionUidKey(uid))) === key) {
      await this.store.del(sessionUidKey(uid));
    }
    if (typeof userCode === 'string' && (await this.store.get(userCodeKey(userCode))) === key) {
      await this.store.del(userCodeKey(userCode));
    }
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const indexKey = grantIndexKey(grantId);
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
