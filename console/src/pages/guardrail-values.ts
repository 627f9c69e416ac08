/**
 * A guardrail between its API JSON (/v1/admin/guardrails) and the form's values: which fields
 * each check type has, lists as lines or choices, and the bodies a create or an edit sends (an
 * edit sends the whole `check` and `apply_to` when any of their fields changed: the API replaces
 * a check whole, and a list is replaced, never merged).
 */
export type CheckType = 'regex' | 'words' | 'pii' | 'secrets' | 'size' | 'json' | 'webhook' | 'moderation';
export const CHECK_TYPES: CheckType[] = ['regex', 'words', 'pii', 'secrets', 'size', 'json', 'webhook', 'moderation'];
export const PII_KINDS = ['email', 'phone', 'card', 'iban', 'ip'];
export const PII_REGIONS = ['US', 'CA', 'GB', 'FR', 'DE', 'ES', 'IT', 'NL'];
export const SECRET_KINDS = ['api_key', 'aws_key', 'private_key', 'jwt'];

export interface Guardrail {
  id: string;
  name: string;
  description: string;
  stage: 'input' | 'output' | 'both';
  action: 'block' | 'redact' | 'flag';
  apply_to: { default: boolean; models: string[]; groups: string[]; keys: string[] };
  check: Record<string, unknown> & { type: CheckType };
}

/** Every value of the form: texts for text fields, string lists for choices, booleans for boxes. */
export interface GuardrailForm {
  id: string;
  name: string;
  description: string;
  stage: string;
  action: string;
  type: CheckType;
  lines: string;
  category: string;
  kinds: string[];
  regions: string[];
  max_tokens: string;
  max_chars: string;
  match_schema: boolean;
  url: string;
  timeout_ms: string;
  fail: string;
  headers: string;
  model: string;
  prompt: string;
  apply_default: boolean;
  models: string[];
  groups: string[];
  keys: string;
}

const text = (value: unknown) => (value == null ? '' : String(value));
const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

export function formOf(g?: Guardrail): GuardrailForm {
  const c = g?.check ?? { type: 'regex' as CheckType };
  const type = c.type;
  return {
    id: g?.id ?? '',
    name: g?.name ?? '',
    description: g?.description ?? '',
    stage: g?.stage ?? 'input',
    action: g?.action ?? 'block',
    type,
    lines: list(type === 'words' ? c.words : c.patterns).join('\n'),
    category: text(c.category),
    kinds: g ? list(c.kinds) : [],
    regions: g ? list(c.regions) : [],
    max_tokens: text(c.max_tokens),
    max_chars: text(c.max_chars),
    match_schema: c.match_schema !== false,
    url: text(c.url),
    timeout_ms: text(c.timeout_ms),
    fail: text(c.fail) || 'open',
    headers: Object.entries((c.headers as Record<string, string> | undefined) ?? {}).map(([name, value]) => `${name}: ${value}`).join('\n'),
    model: text(c.model),
    prompt: text(c.prompt),
    apply_default: g?.apply_to.default ?? false,
    models: list(g?.apply_to.models),
    groups: list(g?.apply_to.groups),
    keys: list(g?.apply_to.keys).join(', '),
  };
}

/** Not a number stays text, so the API says what is wrong with it beside the field. */
const number = (value: string) => (value.trim() === '' ? undefined : Number.isNaN(Number(value)) ? value.trim() : Number(value));
const lines = (value: string) => value.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);

function headersOf(value: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const line of lines(value)) {
    const colon = line.indexOf(':');
    headers[colon < 0 ? line : line.slice(0, colon).trim()] = colon < 0 ? '' : line.slice(colon + 1).trim();
  }
  return Object.keys(headers).length ? headers : undefined;
}

/** The `check` object of the form's type: only that type's fields, empty ones left to the defaults. */
export function checkOf(f: GuardrailForm): Record<string, unknown> {
  const fields: Record<string, unknown> = { type: f.type };
  const put = (name: string, value: unknown) => value !== undefined && value !== '' && (fields[name] = value);
  switch (f.type) {
    case 'regex':
    case 'words':
      fields[f.type === 'regex' ? 'patterns' : 'words'] = lines(f.lines);
      put('category', f.category.trim());
      break;
    case 'pii':
      if (f.kinds.length) fields.kinds = f.kinds;
      if (f.regions.length) fields.regions = f.regions;
      break;
    case 'secrets':
      if (f.kinds.length) fields.kinds = f.kinds;
      break;
    case 'size':
      put('max_tokens', number(f.max_tokens));
      put('max_chars', number(f.max_chars));
      break;
    case 'json':
      fields.match_schema = f.match_schema;
      break;
    case 'webhook':
      put('url', f.url.trim());
      put('timeout_ms', number(f.timeout_ms));
      put('fail', f.fail);
      put('headers', headersOf(f.headers));
      break;
    case 'moderation':
      put('model', f.model.trim());
      put('timeout_ms', number(f.timeout_ms));
      put('fail', f.fail);
      put('prompt', f.prompt.trim());
      break;
  }
  return fields;
}

const keyIds = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);
const applyOf = (f: GuardrailForm) => ({ default: f.apply_default, models: f.models, groups: f.groups, keys: keyIds(f.keys) });

export function createBody(f: GuardrailForm): Record<string, unknown> {
  const body: Record<string, unknown> = { name: f.name.trim(), stage: f.stage, action: f.action, apply_to: applyOf(f), check: checkOf(f) };
  if (f.id.trim()) body.id = f.id.trim();
  if (f.description.trim()) body.description = f.description.trim();
  return body;
}

/** The PUT body of an edit: what changed, `check` and `apply_to` whole. */
export function editBody(initial: GuardrailForm, f: GuardrailForm): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of ['name', 'description', 'stage', 'action'] as const) if (f[name] !== initial[name]) body[name] = f[name].trim();
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(checkOf(initial), checkOf(f))) body.check = checkOf(f);
  if (!same(applyOf(initial), applyOf(f))) body.apply_to = applyOf(f);
  return body;
}

/** One line about what a guardrail checks, for the list. */
export function checkSummary(check: Guardrail['check']): string {
  switch (check.type) {
    case 'regex':
      return `${list(check.patterns).length} pattern(s)`;
    case 'words':
      return `${list(check.words).length} word(s)`;
    case 'pii':
    case 'secrets':
      return list(check.kinds).join(', ') || 'all kinds';
    case 'size':
      return [check.max_tokens && `≤ ${String(check.max_tokens)} tokens`, check.max_chars && `≤ ${String(check.max_chars)} chars`].filter(Boolean).join(', ');
    case 'json':
      return check.match_schema === false ? 'valid JSON' : 'valid JSON, matching the schema';
    case 'webhook':
      return text(check.url);
    case 'moderation':
      return text(check.model);
  }
}

/** Who a guardrail applies to, for the list. */
export function applySummary(apply: Guardrail['apply_to']): string {
  const parts = [
    apply.default && 'every request',
    apply.models.length && `models: ${apply.models.join(', ')}`,
    apply.groups.length && `groups: ${apply.groups.join(', ')}`,
    apply.keys.length && `keys: ${apply.keys.join(', ')}`,
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'nothing (not attached)';
}
