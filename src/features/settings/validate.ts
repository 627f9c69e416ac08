/**
 * Validation of a partial settings update (spec 2.6, 4.9): only the named groups and fields,
 * each checked for type and meaning. Every error is 400 `invalid_value` with `param` naming
 * the field (`account.timezone`); an unknown group or field is 400 `unknown_field`.
 */
import { isIpOrCidr } from '../../kernel/ip-match.ts';
import type { AccountSettings } from '../../config/types.ts';
import { LANGUAGES, supportedLanguage } from '../../i18n/language.ts';
import { invalidBody, invalidValue, unknownField } from '../../kernel/errors.ts';
import { own } from '../../kernel/own.ts';

/** A partial settings object: some groups, some of their fields. */
export type SettingsPatch = { [G in keyof AccountSettings]?: Partial<AccountSettings[G]> };

type Check = (value: unknown, field: string) => unknown;

/** The bounds gateway.yaml's schema gives names and lists, so stored settings stay small too. */
const MAX_NAME = 256;
const MAX_LIST = 1000;

const timeZones = new Set(Intl.supportedValuesOf('timeZone'));
const currencies = new Set(Intl.supportedValuesOf('currency'));

const bool: Check = (v, f) => {
  if (typeof v !== 'boolean') throw invalidValue(`${f} must be true or false.`, f);
  return v;
};

const nonNegative: Check = (v, f) => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalidValue(`${f} must be a number >= 0.`, f);
  return v;
};

const timezone: Check = (v, f) => {
  const zone = typeof v === 'string' ? canonicalTimeZone(v) : null;
  if (!zone) throw invalidValue(`${f} must be an IANA time zone, e.g. Asia/Shanghai.`, f);
  return zone;
};

const currency: Check = (v, f) => {
  if (typeof v !== 'string' || !/^[A-Z]{3}$/.test(v) || !currencies.has(v)) {
    throw invalidValue(`${f} must be an ISO 4217 currency code, e.g. CNY or USD.`, f);
  }
  return v;
};

/** A BCP 47 tag of a language the emails and OAuth pages are written in (src/i18n). */
const language: Check = (v, f) => {
  const wrong = () => invalidValue(`${f} must be a BCP 47 language tag of a supported language (${LANGUAGES.join(', ')}), e.g. en or zh-CN.`, f);
  if (typeof v !== 'string' || !v || v.length > 64) throw wrong();
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(v)[0];
  } catch {
    throw wrong();
  }
  if (!supportedLanguage(canonical)) throw wrong();
  return canonical;
};

const temperature: Check = (v, f) => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 2) throw invalidValue(`${f} must be a number from 0 to 2.`, f);
  return v;
};

const modelName: Check = (v, f) => {
  if (v === null) return null;
  if (typeof v !== 'string' || v.length > MAX_NAME) throw invalidValue(`${f} must be a model id (at most ${MAX_NAME} characters) or null.`, f);
  return v.trim() === '' ? null : v;
};

const ipList: Check = (v, f) => {
  if (!Array.isArray(v) || v.length > MAX_LIST) throw invalidValue(`${f} must be an array of at most ${MAX_LIST} IP addresses or CIDR ranges.`, f);
  return v.map((entry, i) => {
    if (typeof entry !== 'string' || !isIpOrCidr(entry.trim())) {
      throw invalidValue(`${f}[${i}] must be an IP address or CIDR range, e.g. 203.0.113.7 or 10.0.0.0/8.`, `${f}[${i}]`);
    }
    return entry.trim();
  });
};

const FIELDS: { [G in keyof AccountSettings]: Record<keyof AccountSettings[G], Check> } = {
  account: { timezone, language, currency },
  notifications: {
    email_usage_alert: bool,
    email_low_balance: bool,
    email_weekly_report: bool,
    balance_threshold: nonNegative,
  },
  api: { default_model: modelName, default_temperature: temperature, stream_by_default: bool },
  security: { ip_whitelist_enabled: bool, allowed_ips: ipList, request_logging: bool },
};

/**
 * The zone's name as IANA spells it (`asia/shanghai` is stored as `Asia/Shanghai`, so that every
 * comparison and display sees one name), or null for no zone.
 */
function canonicalTimeZone(tz: string): string | null {
  if (timeZones.has(tz) || tz === 'UTC') return tz;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates and normalises a PUT /v1/settings body into a patch. */
export function validateSettingsPatch(body: unknown): SettingsPatch {
  if (!isObject(body)) throw invalidBody('The request body must be a JSON object of settings groups.');
  const patch: Record<string, Record<string, unknown>> = {};
  for (const [group, fields] of Object.entries(body)) {
    const checks = own(FIELDS as Record<string, Record<string, Check>>, group);
    if (!checks) throw unknownField(group);
    if (!isObject(fields)) throw invalidValue(`${group} must be an object of fields.`, group);
    const out: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(fields)) {
      const check = own(checks, field);
      if (!check) throw unknownField(`${group}.${field}`);
      out[field] = check(value, `${group}.${field}`);
    }
    patch[group] = out;
  }
  return patch as SettingsPatch;
}

/** `base` with the patch's fields applied (a new object; `base` is not changed). */
export function applyPatch(base: AccountSettings, patch: SettingsPatch): AccountSettings {
  return {
    account: { ...base.account, ...patch.account },
    notifications: { ...base.notifications, ...patch.notifications },
    api: { ...base.api, ...patch.api },
    security: { ...base.security, ...patch.security, allowed_ips: [...(patch.security?.allowed_ips ?? base.security.allowed_ips)] },
  };
}

/** Merges two patches (later fields win). */
export function mergePatches(a: SettingsPatch, b: SettingsPatch): SettingsPatch {
  const out: Record<string, Record<string, unknown>> = {};
  for (const group of Object.keys(FIELDS)) {
    const merged = { ...(a as Record<string, object>)[group], ...(b as Record<string, object>)[group] };
    if (Object.keys(merged).length) out[group] = merged;
  }
  return out as SettingsPatch;
}
