/**
 * Record what passes through a chunk stream into the outcome (text, usage, finish, the
 * assembled answer), and keep the usage chunk from clients that did not ask for it.
 */
import type { ChatChunk } from '../providers/openai-types.ts';
import type { GatewayContext } from './context.ts';
import { StreamAssembly } from './stream-assembly.ts';

export async function* observeChunks(ctx: GatewayContext, chunks: AsyncIterable<ChatChunk>): AsyncGenerator<ChatChunk> {
  const includeUsage = ctx.body.stream_options?.include_usage === true;
  const outcome = ctx.outcome;
  const assembly = (outcome.assembly = new StreamAssembly());
  for await (const chunk of chunks) {
    if (chunk.usage) outcome.usage = chunk.usage;
    assembly.add(chunk);
    for (const choice of chunk.choices) {
      const content = choice.delta?.content;
      if (content) outcome.text += content;
      if (choice.finish_reason) outcome.finished = true;
    }
    if (!includeUsage) {
      if (chunk.choices.length === 0) continue;
      delete chunk.usage;
    } else if (chunk.usage === undefined) chunk.usage = null;
    yield chunk;
  }
}
