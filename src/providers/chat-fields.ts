/**
 * The top-level chat fields an adapter that translates the request (Messages API,
 * generateContent) can honour. The chat body schema lets unknown fields through, since OpenAI
 * adds parameters often and OpenAI-wire upstreams get the body as sent; a translating adapter
 * instead lists every field it accounts for, next to its translation: translated, harmless to
 * omit (an identifier or hint with no effect on the answer), or honoured only at some values.
 * Any other field is refused by name rather than dropped, so the client never gets a silently
 * different answer.
 */
import { unsupportedParameter } from '../kernel/errors.ts';
import type { ChatRequest } from './openai-types.ts';

/** `true`: translated, or harmless to omit. A function: why this value cannot be honoured, or null when it can. */
export type FieldRule = true | ((value: unknown) => string | null);

export type FieldRules = ReadonlyMap<string, FieldRule>;

/** Fields the adapter translates. */
export const translated = (names: string[]): Array<[string, FieldRule]> => names.map((name) => [name, true]);

/** A field honoured only at the values `ok` accepts (its no-op value, usually). */
export const only = (ok: (value: unknown) => boolean, why: string): FieldRule => (value) => (ok(value) ? null : why);

/** A field the upstream cannot honour at any value, with the reason given to the client. */
export const never = (why: string): FieldRule => () => why;

const isEmptyObject = (value: unknown) => typeof value === 'object' && value !== null && Object.keys(value).length === 0;

/**
 * What every translating adapter accepts the same way: the gateway's own fields (including those
 * its steps add), hints without effect on the answer, and OpenAI-only parameters at their no-op value.
 */
export function commonFields(upstream: string): Array<[string, FieldRule]> {
  return [
    ['model', true],
    ['messages', true],
    ['stream', true],
    // include_usage: the gateway reads the upstream's usage itself and shows it when asked.
    ['stream_options', true],
    // The gateway's own: the models tried after this one.
    ['fallbacks', true],
    // Identifiers and hints that do not change the answer: end-user and safety ids, OpenAI's
    // storage, cache routing and service tier, and predicted output (latency only).
    ['user', true],
    ['safety_identifier', true],
    ['metadata', true],
    ['store', true],
    ['prompt_cache_key', true],
    ['prompt_cache_retention', true],
    ['service_tier', true],
    ['prediction', true],
    ['n', only((v) => v === 1, `The ${upstream} upstream returns one choice only: 'n' must be 1.`)],
    ['logprobs', only((v) => v === false, `The ${upstream} upstream does not return log probabilities.`)],
    ['top_logprobs', only((v) => v === 0, `The ${upstream} upstream does not return log probabilities.`)],
    ['logit_bias', only(isEmptyObject, `The ${upstream} upstream does not support 'logit_bias'.`)],
    [
      'modalities',
      only((v) => Array.isArray(v) && v.every((m) => m === 'text'), `The ${upstream} upstream answers in text only: 'modalities' must be ["text"].`),
    ],
    ['audio', never(`The ${upstream} upstream answers in text only: audio output is not supported.`)],
    // gpt-5's answer length: `medium` is its default, any other value would be ignored here.
    ['verbosity', only((v) => v === 'medium', `The ${upstream} upstream does not support 'verbosity'.`)],
  ];
}

/**
 * Throws 400 `unsupported_parameter`, naming the field, for the first top-level field the rules
 * do not honour (absent and null values are no request). One pass over the body's own keys.
 */
export function refuseUnhonoured(request: ChatRequest, upstream: string, rules: FieldRules): void {
  for (const key in request) {
    const value = request[key];
    if (value === undefined || value === null) continue;
    const rule = rules.get(key);
    if (rule === true) continue;
    const why = rule ? rule(value) : `The ${upstream} upstream does not support '${key}'.`;
    if (why !== null) throw unsupportedParameter(why, key);
  }
}
