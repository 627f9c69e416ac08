/**
 * The bench's mock upstream in its own process (forked by bench/run.ts), so that it does not
 * share an event loop with the load generator. Sends `{ port }` to the parent once listening.
 */
import { startMockUpstream } from '../test/mock-upstream/server.ts';

const mock = await startMockUpstream({ port: 0, host: '127.0.0.1' });
// The mock records every request for tests; under load that record only grows, so drop it.
setInterval(() => mock.reset(), 1000).unref();
process.send?.({ port: mock.port });
process.on('disconnect', () => void mock.close().finally(() => process.exit(0)));
process.once('SIGTERM', () => void mock.close().finally(() => process.exit(0)));
