/**
 * The embeddings `input` checks OpenAI makes, with its kind of message: no empty string, no empty
 * list, no empty token list, and token ids that are integers from 0 to 2^31-1. The schema
 * (schemas/api/embeddings.schema.json) says the same, but its `anyOf` can only report the first
 * branch ("must be string"); this names the element at fault (`input[2]`, `input[0][5]`).
 */
import { invalidBody } from '../../kernel/errors.ts';

/** The largest token id accepted: token ids are int32 on every upstream (1e20 is no token). */
export const MAX_TOKEN_ID = 2 ** 31 - 1;

const isTokenId = (value: unknown) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_TOKEN_ID;

function refuse(param: string, what: string): never {
  throw invalidBody(`Invalid value for '${param}': ${what}.`, param);
}

function checkTokens(tokens: unknown[], param: string): void {
  if (tokens.length === 0) refuse(param, 'a list of token ids must not be empty');
  tokens.forEach((token, index) => {
    if (!isTokenId(token)) refuse(`${param}[${index}]`, `a token id must be an integer from 0 to ${MAX_TOKEN_ID}`);
  });
}

/**
 * Throws a 400 naming the part of `input` that OpenAI would refuse. Shapes it does not know (an
 * object, a list of mixed kinds) are left to the schema, which refuses them too.
 */
export function assertEmbeddingsInput(input: unknown): void {
  if (typeof input === 'string') {
    if (input === '') refuse('input', 'the input must not be an empty string');
    return;
  }
  if (!Array.isArray(input)) return;
  if (input.length === 0) refuse('input', 'the input must not be an empty list');
  if (typeof input[0] === 'number') return checkTokens(input, 'input');
  input.forEach((item, index) => {
    if (item === '') refuse(`input[${index}]`, 'an input must not be an empty string');
    if (Array.isArray(item)) checkTokens(item, `input[${index}]`);
  });
}
