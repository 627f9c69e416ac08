/**
 * The semantic cache on the shared state store (Redis with REDIS_URL), so every instance
 * answers from what any of them stored. Redis 7 here has no vector search module, so a
 * partition is one key holding its entries (at most `max_entries`: vector as base64 float32,
 * completion, expiry), read with one GET and scanned in process. A write reads, appends,
 * drops the oldest and expired, and writes back with the TTL: two round trips off the
 * request path (onComplete); two writers racing on one partition may lose an entry, which
 * costs a later miss, never a wrong answer.
 */
import type { StateStore } from '../../store/types.ts';
import { bestMatch, type SemanticLimits, type SemanticStore } from './store.ts';

interface StoredEntry {
  /** The vector: little-endian float32 bytes in base64. */
  v: string;
  /** The completion as JSON text. */
  c: string;
  /** Expiry, milliseconds since the epoch. */
  t: number;
}

const encode = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');

function decode(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  // Copied into an aligned buffer: Buffer.from may hand out a pooled slice at any offset.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

function parse(text: string | null, time: number): StoredEntry[] {
  if (!text) return [];
  try {
    const entries = JSON.parse(text) as StoredEntry[];
    return Array.isArray(entries) ? entries.filter((entry) => entry && entry.t > time) : [];
  } catch {
    return []; // a damaged key is an empty partition; the next write replaces it
  }
}

export function createSharedSemanticStore(store: StateStore, limits: SemanticLimits, now: () => number = Date.now): SemanticStore {
  return {
    async search(partition, vector, threshold) {
      const entries = parse(await store.get(partition), now()).map((entry) => ({ vector: decode(entry.v), completion: entry.c }));
      const best = bestMatch(entries, vector, threshold);
      return best && { completion: best.entry.completion, similarity: best.similarity };
    },
    async add(partition, vector, completion) {
      const time = now();
      const entries = parse(await store.get(partition), time);
      entries.push({ v: encode(vector), c: completion, t: time + limits.ttlMs });
      await store.set(partition, JSON.stringify(entries.slice(-limits.maxEntries)), limits.ttlMs);
    },
  };
}
