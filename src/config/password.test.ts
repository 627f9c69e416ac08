import { describe, expect, it } from 'vitest';
import { hashApiKey } from './keys.ts';
import { hashPassword, verifyPassword } from './password.ts';

describe('password hashes', () => {
  it('produces a PHC scrypt string that verifies only the right password', async () => {
    const phc = await hashPassword('correct horse');
    expect(phc).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword('correct horse', phc)).toBe(true);
    expect(await verifyPassword('correct horsE', phc)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('x')).not.toBe(await hashPassword('x'));
  });

  it('verifies hashes with other parameters and refuses malformed or abusive ones', async () => {
    const sample = '$scrypt$ln=17,r=8,p=1$rb+zPTOTuVy8mkzD44MAsg$Ghc6G2dY10x/ucyq7AaAEChW0BrAbg1gkKG+J2pZWMc';
    expect(await verifyPassword('demo-password', sample)).toBe(true);
    expect(await verifyPassword('demo-password', 'plain-text')).toBe(false);
    expect(await verifyPassword('demo-password', sample.replace('ln=17', 'ln=30'))).toBe(false);
  });
});

describe('hashApiKey', () => {
  it('is sha256 of the full key', () => {
    expect(hashApiKey('sk-bf-demo-0000000000000000000000000000')).toBe(
      'sha256:f6ac88c55c9d07d2a09b6dcfb38a6f327ba04d4744bdebe1b3abc4008a5ab60e',
    );
  });
});
