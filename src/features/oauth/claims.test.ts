import { describe, expect, it } from 'vitest';
import { accountClaims } from './claims.ts';

const dana = { id: 'dana', email: 'Dana@corp.example', name: 'Dana', role: 'admin' as const, group: 'lab', created_at: '2024-05-01T00:00:00.000Z' };

describe('accountClaims', () => {
  it('gives the standard claims plus role and group', () => {
    expect(accountClaims(dana, { email_verified: true, email: 'dana@corp.example' })).toEqual({
      sub: 'dana',
      email: 'Dana@corp.example',
      email_verified: true,
      name: 'Dana',
      preferred_username: 'dana',
      updated_at: 1714521600,
      role: 'admin',
      group: 'lab',
    });
  });

  it('says the email is not verified when the verified address is another one, or none was', () => {
    expect(accountClaims(dana, { email_verified: true, email: 'old@corp.example' }).email_verified).toBe(false);
    expect(accountClaims(dana, { email_verified: false }).email_verified).toBe(false);
  });

  it('leaves updated_at out when the account has no time', () => {
    expect(accountClaims({ ...dana, created_at: undefined }, { email_verified: false })).not.toHaveProperty('updated_at');
  });
});
