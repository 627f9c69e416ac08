/**
 * From the company identity provider's claims to a gateway account. The email claim identifies the
 * account; the role and group claims (console.sso.role_claim / group_claim) decide its role and
 * group. A first sign-in creates the account, a later one with other claims updates it, both
 * through the same write-back as the users API (so gateway.yaml stays the one list of accounts).
 * With write-back off the file is the only source: known accounts sign in as the file says.
 */
import type { AccountConfig, ConsoleSsoConfig } from '../../config/types.ts';
import { nowIso } from '../admin/crud.ts';
import { newAccountId } from '../admin/account-ids.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';

export interface SsoProfile {
  email: string;
  name: string;
  role: AccountConfig['role'];
  /** A group id of gateway.yaml, or undefined when the claim names none. */
  group?: string;
}

/** A sign-in the gateway refuses; the message is for the person signing in. */
export class SsoRefusal extends Error {}

const valuesOf = (claim: unknown): string[] =>
  Array.isArray(claim) ? claim.filter((v): v is string => typeof v === 'string') : typeof claim === 'string' ? [claim] : [];

/** Reads the mapped fields from the claims (ID token merged with userinfo). */
export function profileFromClaims(claims: Record<string, unknown>, sso: ConsoleSsoConfig, runtime: Runtime): SsoProfile {
  const email = valuesOf(claims[sso.email_claim])[0]?.trim().toLowerCase();
  if (!email || !email.includes('@')) throw new SsoRefusal(`Your identity provider did not send an email address (claim '${sso.email_claim}').`);
  const name = valuesOf(claims[sso.name_claim])[0] ?? email.split('@')[0]!;
  const role = valuesOf(claims[sso.role_claim]).some((value) => sso.admin_values.includes(value)) ? 'admin' : 'member';
  const groupClaim = sso.group_claim ? valuesOf(claims[sso.group_claim]) : [];
  const group = groupClaim.find((id) => runtime.current().groups.has(id));
  return { email, name, role, group };
}

const findByEmail = (runtime: Runtime, email: string) => runtime.current().config.accounts.find((a) => a.email.toLowerCase() === email);

/** The id of the account `profile` signs in as, created or brought in line with the claims. */
export async function ensureAccount({ runtime, writer }: Pick<Gateway, 'runtime' | 'writer'>, profile: SsoProfile, logger: Logger): Promise<string> {
  const existing = findByEmail(runtime, profile.email);
  const changed = existing && (existing.role !== profile.role || (existing.group ?? undefined) !== profile.group);
  if (existing && !changed) return existing.id;
  if (!runtime.current().config.management.write_back) {
    if (existing) {
      logger.warn('sso claims differ from gateway.yaml, which is read-only (management.write_back: false); the file wins', { account: existing.id });
      return existing.id;
    }
    throw new SsoRefusal('There is no gateway account for your email, and this gateway cannot create one (its configuration is read-only). Ask an administrator.');
  }
  return writer.change(async (draft) => {
    const current = draft.snapshot.config.accounts.find((a) => a.email.toLowerCase() === profile.email);
    if (current) {
      draft.items.merge('accounts', current.id, { role: profile.role, group: profile.group });
      logger.info('sso account updated from claims', { account: current.id, role: profile.role, group: profile.group ?? null });
      return current.id;
    }
    const taken = (id: string) => draft.snapshot.accounts.has(id) || id === 'admin';
    // Never a deleted account's id: its call log, settings and tokens are not this person's.
    const id = await newAccountId(runtime, undefined, profile.email.split('@')[0]!, taken);
    const group = profile.group ? { group: profile.group } : {};
    draft.items.append('accounts', { id, email: profile.email, name: profile.name, role: profile.role, ...group, created_at: nowIso() });
    logger.info('sso account created', { account: id, role: profile.role, group: profile.group ?? null });
    return id;
  });
}
