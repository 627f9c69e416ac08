/**
 * Record what passes through a chunk stream into the outcome (text, usage, finish, the
 * assembled answer), and keep the usage chunk from clients that did not ask for it. Chunks
 * travel in batches (what one upstream read carried); a batch left empty is not passed on.
 */
import type { ChatChunk } from '../providers/openai-types.ts';
import type { GatewayContext } from './context.ts';
import { StreamAssembly } from './stream-assembly.ts';

export async function* observeChunks(ctx: GatewayContext, batches: AsyncIterable<ChatChunk[]>): AsyncGenerator<ChatChunk[]> {
  const includeUsage = ctx.body.stream_options?.include_usage === true;
  const outcome = ctx.outcome;
  const assembly = (outcome.assembly = new StreamAssembly());
  for await (const batch of batches) {
    let kept = 0;
    for (const chunk of batch) {
      if (chunk.usage) outcome.usage = chunk.usage;
      assembly.add(chunk);
      for (const choice of chunk.choices) {
        const content = choice.delta?.content;
        if (content) outcome.text += content;
        if (choice.finish_reason) {
          outcome.finished = true;
          outcome.finishReason = choice.finish_reason;
        }
      }
      if (!includeUsage) {
        if (chunk.choices.length === 0) continue;
        // Undefined, not deleted: serialised alike, and a `delete` is a call into V8's runtime.
        if (chunk.usage !== undefined) chunk.usage = undefined;
      } else if (chunk.usage === undefined) chunk.usage = null;
      batch[kept++] = chunk; // kept in place: no second array per batch
    }
    if (kept !== batch.length) batch.length = kept; // a store to an array's length is a runtime call
    if (kept) yield batch;
  }
}
