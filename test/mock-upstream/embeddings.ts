/**
 * The mock's embeddings endpoints, one per wire format that has them: compat `…/embeddings`,
 * vendor_d `/openai/deployments/{d}/embeddings`, vendor_c `:embedContent` and
 * `:batchEmbedContents`. Vectors are deterministic (see mockEmbedding) so tests can compute
 * the similarity of two prompts the way the gateway will see it.
 */
import { createHash } from 'node:crypto';
import type { Format } from './format.ts';
import { compatFormat, deploymentFormat } from './format-openai.ts';
import { generateFormat } from './format-generate.ts';
import { countTokens } from './plan.ts';

/** Dimensions of the mock's vectors unless the request asks for fewer (`dimensions`). */
export const MOCK_DIMENSIONS = 64;

/**
 * A bag-of-words vector: each lower-cased word adds ±1 to a hashed slot, then L2-normalised.
 * Two texts' cosine similarity is so about the share of words they have in common: the same
 * words in another case or punctuation are 1.0, one word changed out of ten about 0.9.
 */
export function mockEmbedding(text: string, dimensions = MOCK_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    const digest = createHash('sha256').update(word).digest();
    vector[digest.readUInt32BE(0) % dimensions]! += digest[4]! & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** Cosine similarity of two vectors (both normalised by mockEmbedding, so a dot product). */
export const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

export interface EmbeddingRoute {
  /** The chat format whose auth check and error body the embeddings endpoint shares. */
  format: Format;
  /** The model from the path (vendor_c, vendor_d), else null (from the body). */
  pathModel: string | null;
  /** vendor_c's batch call. */
  batch: boolean;
}

export function matchEmbeddingRoute(path: string): EmbeddingRoute | undefined {
  const deployment = /\/openai\/deployments\/([^/]+)\/embeddings$/.exec(path);
  if (deployment) return { format: deploymentFormat, pathModel: decodeURIComponent(deployment[1]!), batch: false };
  const generate = /\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/.exec(path);
  if (generate) return { format: generateFormat, pathModel: decodeURIComponent(generate[1]!), batch: generate[2] === 'batchEmbedContents' };
  if (/\/embeddings$/.test(path) && !path.includes('/openai/deployments/')) return { format: compatFormat, pathModel: null, batch: false };
  return undefined;
}

const textOfGenerate = (request: any): string =>
  (request?.content?.parts ?? []).filter((part: any) => typeof part.text === 'string').map((part: any) => part.text).join(' ');

/** The texts a request embeds, and the dimensions it asks for. */
export function embeddingInputs(route: EmbeddingRoute, body: any): { texts: string[]; dimensions?: number; model: string } {
  if (route.format === generateFormat) {
    const requests: any[] = route.batch ? (Array.isArray(body?.requests) ? body.requests : []) : [body];
    return { texts: requests.map(textOfGenerate), dimensions: requests[0]?.outputDimensionality, model: route.pathModel ?? '' };
  }
  const input = body?.input;
  const list: unknown[] = typeof input === 'string' ? [input] : Array.isArray(input) && typeof input[0] === 'number' ? [input] : Array.isArray(input) ? input : [];
  // Token arrays are embedded as their numbers' text: deterministic, which is all a test needs.
  const texts = list.map((item) => (typeof item === 'string' ? item : Array.isArray(item) ? item.join(' ') : ''));
  return { texts, dimensions: body?.dimensions, model: route.pathModel ?? String(body?.model ?? '') };
}

/** The answer in the route's wire format. */
export function embeddingAnswer(route: EmbeddingRoute, inputs: ReturnType<typeof embeddingInputs>): unknown {
  const vectors = inputs.texts.map((text) => mockEmbedding(text, inputs.dimensions ?? MOCK_DIMENSIONS));
  if (route.format === generateFormat) {
    return route.batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] } };
  }
  const tokens = inputs.texts.reduce((sum, text) => sum + countTokens(text), 0);
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model: inputs.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
