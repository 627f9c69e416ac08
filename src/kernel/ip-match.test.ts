import { describe, expect, it } from 'vitest';
import { clientIp } from '../http/client-ip.ts';
import { createIpMatcher, isIpOrCidr } from './ip-match.ts';

describe('IP matching', () => {
  it('matches addresses and CIDR ranges, v4 and v6, folding v4-mapped v6', () => {
    const allowed = createIpMatcher(['10.0.0.0/8', '192.168.1.5', '2001:db8::/32']);
    expect(allowed('10.1.2.3')).toBe(true);
    expect(allowed('::ffff:10.1.2.3')).toBe(true);
    expect(allowed('192.168.1.5')).toBe(true);
    expect(allowed('192.168.1.6')).toBe(false);
    expect(allowed('2001:db8::1')).toBe(true);
    expect(allowed('2001:db9::1')).toBe(false);
    expect(allowed('not-an-ip')).toBe(false);
  });

  it('validates entries', () => {
    for (const ok of ['1.2.3.4', '1.2.3.0/24', '::1', 'fe80::/10']) expect(isIpOrCidr(ok)).toBe(true);
    for (const bad of ['1.2.3.4/33', '300.1.1.1', 'fe80::/129', '1.2.3.4/x', 'host', '1.2.3.4/8/1']) expect(isIpOrCidr(bad)).toBe(false);
  });
});

describe('clientIp', () => {
  it('ignores X-Forwarded-For from untrusted peers', () => {
    expect(clientIp('203.0.113.9', '1.1.1.1', [])).toBe('203.0.113.9');
    expect(clientIp('203.0.113.9', '1.1.1.1', ['10.0.0.0/8'])).toBe('203.0.113.9');
  });

  it('takes the nearest untrusted hop behind trusted proxies', () => {
    expect(clientIp('10.0.0.2', '1.1.1.1, 10.0.0.7', ['10.0.0.0/8'])).toBe('1.1.1.1');
    expect(clientIp('::ffff:10.0.0.2', 'evil-spoof, 2.2.2.2', ['10.0.0.0/8'])).toBe('2.2.2.2');
  });
});
