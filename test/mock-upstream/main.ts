/** `npm run mock-upstream`: serve the mock on MOCK_PORT (default 9999) until stopped. */
import { startMockUpstream } from './server.ts';

const mock = await startMockUpstream({ port: Number(process.env.MOCK_PORT ?? 9999), host: process.env.MOCK_HOST ?? '127.0.0.1' });
console.log(`mock upstream on ${mock.url}/v1 (models fail-<status>, slow-<ms>, stall, cut change its behaviour)`);
const stop = async () => {
  await mock.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
