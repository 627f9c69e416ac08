import { describe, expect, it } from 'vitest';
import { DEMO_KEY, useGateway } from '../_setup.ts';

const env = useGateway('chat.yaml');

describe('the responses route is a known inference path', () => {
  it('answers 405 with Allow: POST for GET /api/v1/responses', async () => {
    const response = await fetch(`${env.gw.url}/api/v1/responses`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect((await response.json()).error.code).toBe('method_not_allowed');
  });
});
