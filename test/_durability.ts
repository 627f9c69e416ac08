/** The gateway process as the durability tests (test/e2e/durability*.test.ts) start it. */
import { spawnGateway, waitHealthy, type GatewayProcess } from './_process.ts';
import { MASTER_KEY } from './_setup.ts';

/**
 * The gateway as the durability tests start it: `configFile`, the test master key, no file watch,
 * the mock upstream at MOCK_URL and no Redis unless `env` names one; resolves once healthy.
 */
export async function launchGateway(configFile: string, mock: { url: string }, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const gateway = await spawnGateway({
    GATEWAY_CONFIG: configFile,
    GATEWAY_MASTER_KEY: MASTER_KEY,
    GATEWAY_WATCH: 'false',
    MOCK_URL: `${mock.url}/v1`,
    REDIS_URL: '',
    ...env,
  });
  await waitHealthy(gateway);
  return gateway;
}
