import { describe, expect, it } from 'vitest';
import { validateSettingsPatch } from './validate.ts';

/** The error a patch is refused with, as the API would answer it. */
function refusal(body: unknown) {
  try {
    validateSettingsPatch(body);
  } catch (error) {
    const { status, code, param } = error as { status: number; code: string; param: string };
    return { status, code, param };
  }
  throw new Error('the patch was accepted');
}

describe('validateSettingsPatch', () => {
  it('keeps the named fields, checked and normalised', () => {
    expect(validateSettingsPatch({ account: { language: 'zh-cn' }, api: { default_model: ' ' } }))
      .toEqual({ account: { language: 'zh-CN' }, api: { default_model: null } });
  });

  it('stores a time zone as IANA spells it, and refuses what is none', () => {
    expect(validateSettingsPatch({ account: { timezone: 'asia/shanghai' } })).toEqual({ account: { timezone: 'Asia/Shanghai' } });
    expect(validateSettingsPatch({ account: { timezone: 'utc' } })).toEqual({ account: { timezone: 'UTC' } });
    expect(refusal({ account: { timezone: 'Mars/Olympus' } })).toMatchObject({ status: 400, param: 'account.timezone' });
  });

  it('refuses an unknown group or field with 400 unknown_field naming it', () => {
    expect(refusal({ billing: {} })).toEqual({ status: 400, code: 'unknown_field', param: 'billing' });
    expect(refusal({ api: { model: 'x' } })).toEqual({ status: 400, code: 'unknown_field', param: 'api.model' });
  });

  // Found by `npm run fuzz`: `constructor` found Object's own constructor, and its `toString` ran as a check (500).
  it("refuses names of Object's members as unknown, never looking them up on the prototype", () => {
    expect(refusal({ constructor: { toString: null } })).toEqual({ status: 400, code: 'unknown_field', param: 'constructor' });
    expect(refusal(JSON.parse('{"__proto__": {"valueOf": 1}}'))).toEqual({ status: 400, code: 'unknown_field', param: '__proto__' });
    expect(refusal({ api: { constructor: 1 } })).toEqual({ status: 400, code: 'unknown_field', param: 'api.constructor' });
    expect(refusal({ account: { hasOwnProperty: 'x' } })).toEqual({ status: 400, code: 'unknown_field', param: 'account.hasOwnProperty' });
  });
});
