import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { bodyValidatorsModule, BODY_VALIDATORS_FILE } from '../../../scripts/generate-validators.ts';
import { GatewayError } from '../../kernel/errors.ts';
import { bodyValidator, precompiledValidators } from './validate-body.ts';

describe('the precompiled body validators', () => {
  it('are what scripts/generate-validators.ts writes from schemas/api today (run `npm run generate:validators`)', async () => {
    expect(await readFile(BODY_VALIDATORS_FILE, 'utf8')).toBe(await bodyValidatorsModule());
  });

  it('accept a chat body and refuse one without messages, naming the parameter', () => {
    const validate = bodyValidator(precompiledValidators.chat);
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    expect(validate(body)).toBe(body);
    let refused: unknown;
    try {
      validate({ model: 'gpt-4o-mini' });
    } catch (error) {
      refused = error;
    }
    expect(GatewayError.is(refused)).toBe(true);
    expect(refused).toMatchObject({ status: 400, param: 'messages' });
  });

  it('check string lengths in characters, not UTF-16 units (the runtime helper the module requires)', () => {
    const validate = bodyValidator(precompiledValidators.chat);
    // 256 emoji: 512 UTF-16 units, 256 characters: within the model name's maxLength of 256.
    expect(() => validate({ model: '😀'.repeat(256), messages: [{ role: 'user', content: 'hi' }] })).not.toThrow();
    expect(() => validate({ model: '😀'.repeat(257), messages: [{ role: 'user', content: 'hi' }] })).toThrow(/model/);
  });
});
