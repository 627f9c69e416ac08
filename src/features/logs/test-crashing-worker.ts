/**
 * Test stand-in for sqlite-worker.ts: answers `migrate` and `ping`; an `insertBatch` makes it
 * die with an uncaught error, leaving that call and any later one unanswered, as a crashed
 * worker would.
 */
import { parentPort } from 'node:worker_threads';
import type { StoreReply, StoreRequest } from './sqlite-protocol.ts';

let crashing = false;
parentPort!.on('message', (request: StoreRequest) => {
  if (crashing) return;
  if (request.method === 'insertBatch') {
    crashing = true;
    setTimeout(() => {
      throw new Error('simulated worker crash');
    }, 20);
    return;
  }
  parentPort!.postMessage({ id: request.id, ok: true, value: request.method === 'ping' ? 0 : undefined } satisfies StoreReply);
});
