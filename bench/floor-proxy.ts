/**
 * The floor: the least any Node.js gateway can add on this machine. A bare reverse proxy
 * (node:http in, a keep-alive undici Agent out, no auth, routing, logging or parsing) in a
 * process of its own, measured like the gateways. What it adds over going straight to the mock
 * is the extra process and loopback hops; what our gateway adds on top of it is the gateway.
 *
 * Run by bench/run.ts as `node --import tsx bench/floor-proxy.ts`; PORT and UPSTREAM (the mock's
 * chat completions URL) come from the environment.
 */
import { createServer } from 'node:http';
import { Agent } from 'undici';

const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:1/v1/chat/completions');
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });

const server = createServer(async (req, res) => {
  if (req.method !== 'POST') return void res.writeHead(200).end('ok'); // the bench's readiness probe
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await agent.request({
      origin: upstream.origin,
      path: upstream.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
      body: Buffer.concat(chunks),
    });
    const contentType = String(answer.headers['content-type'] ?? 'application/json');
    if (!contentType.startsWith('text/event-stream')) {
      // A whole answer goes out in one write, as any gateway that reads it would send it; relayed
      // chunk by chunk, the last chunk's terminator took a write (and a wake-up) of its own.
      const body = Buffer.from(await answer.body.arrayBuffer());
      res.writeHead(answer.statusCode, { 'content-type': contentType, 'content-length': body.length }).end(body);
      return;
    }
    res.writeHead(answer.statusCode, { 'content-type': contentType });
    for await (const chunk of answer.body) res.write(chunk); // relayed as it arrives
    res.end();
  } catch (error) {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(error));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
