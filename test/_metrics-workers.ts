/**
 * What the tests of metrics across worker processes share (the real process with
 * `server.workers: 2`, test/fixtures/metrics-workers.yaml): the series a chat counts in, a chat
 * on a new connection (so the kernel spreads them over the workers), and the poll of a round of
 * scrapes until every one reads the group's total.
 */
import { DEMO_KEY } from './_setup.ts';
import { sample } from './prometheus-sample.ts';

/** The gateway_requests_total series of one successful chat with mock/gpt-4o-mini. */
export const CHAT_SERIES = { model: 'mock/gpt-4o-mini', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'ok' };

/** One chat on a new connection; answers its status. */
export async function chatOnNewConnection(gateway: { url: string }): Promise<number> {
  const res = await fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.text();
  return res.status;
}

/**
 * Poll until each of a round of 8 scrapes (`scrapeText` answers one's body) reads `expected`
 * requests (observers run after the last byte); answers the last round's counts.
 */
export async function totalsOnEveryScrape(scrapeText: () => Promise<string>, expected: number): Promise<number[]> {
  let read: number[] = [];
  for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
    read = [];
    for (let i = 0; i < 8; i++) read.push(sample(await scrapeText(), 'gateway_requests_total', CHAT_SERIES));
    if (read.every((n) => n === expected)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return read;
}
