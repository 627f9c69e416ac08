import { describe, expect, it } from 'vitest';
import { embeddingsBody } from './routes.ts';
import { bodyValidator, precompiledValidators } from './validate-body.ts';

function refusal(input: unknown): unknown {
  try {
    embeddingsBody({ model: 'embed', input });
  } catch (error) {
    return error;
  }
  return null;
}

describe('the embeddings input', () => {
  it.each([
    ['an empty string', '', 'input'],
    ['an empty list', [], 'input'],
    ['a list holding an empty string', ['a', ''], 'input[1]'],
    ['a token id of 1e20', [1, 1e20], 'input[1]'],
    ['a token id of 2^31', [2 ** 31], 'input[0]'],
    ['a negative token id', [-1], 'input[0]'],
    ['a fractional token id', [1.5], 'input[0]'],
    ['an empty token list', [[1], []], 'input[1]'],
    ['a token id of 1e20 in a token list', [[1, 2, 1e20]], 'input[0][2]'],
  ])('refuses %s with a 400 naming %j', (_what, input, param) => {
    expect(refusal(input)).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_body', param });
  });

  it('accepts what OpenAI accepts: text, lists of text, token ids up to 2^31-1, lists of them', () => {
    for (const input of ['a', ['a', 'b'], [0, 2 ** 31 - 1], [[1], [2, 3]]]) expect(refusal(input)).toBeNull();
  });

  it('is refused by the schema alone too (the file the API reference is generated from)', () => {
    const validate = bodyValidator(precompiledValidators.embeddings);
    for (const input of ['', [''], [1e20], [[1e20]], [[]]]) expect(() => validate({ model: 'embed', input })).toThrow(/input/);
  });
});
