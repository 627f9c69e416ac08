/**
 * Where the semantic cache keeps prompts' vectors and their answers, by partition. In memory
 * (default): a bounded LRU of partitions, each a bounded LRU of entries with a TTL. Both
 * stores scan a partition linearly: a partition holds at most `max_entries` prompts.
 */
export interface SemanticMatch {
  /** The stored completion as JSON text. */
  completion: string;
  similarity: number;
}

export interface SemanticStore {
  /** The most similar unexpired entry at or above `threshold`, or null. One store round trip. */
  search(partition: string, vector: Float32Array, threshold: number): Promise<SemanticMatch | null>;
  add(partition: string, vector: Float32Array, completion: string): Promise<void>;
}

export interface SemanticLimits {
  ttlMs: number;
  maxEntries: number;
  maxPartitions: number;
}

/** Cosine similarity; vectors are normalised on the way in, so a dot product. */
export function similarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1; // another embedding model or dimension: never a match
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** The unit vector of `values` (an embedding model's output is not always normalised). */
export function normalized(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** The best match at or above the threshold among `entries`. */
export function bestMatch<E extends { vector: Float32Array; completion: string }>(entries: Iterable<E>, vector: Float32Array, threshold: number) {
  let best: { entry: E; similarity: number } | null = null;
  for (const entry of entries) {
    const score = similarity(entry.vector, vector);
    if (score >= threshold && (!best || score > best.similarity)) best = { entry, similarity: score };
  }
  return best;
}

interface MemoryEntry {
  id: number;
  vector: Float32Array;
  completion: string;
  expiresAt: number;
}

/** Map iteration order is insertion order: delete and set again to mark as most recently used. */
function touch<K, V>(map: Map<K, V>, key: K, value: V) {
  map.delete(key);
  map.set(key, value);
}

function evictOldest<K, V>(map: Map<K, V>, max: number) {
  while (map.size > max) map.delete(map.keys().next().value as K);
}

export function createMemorySemanticStore(limits: SemanticLimits, now: () => number = Date.now): SemanticStore {
  const partitions = new Map<string, Map<number, MemoryEntry>>();
  let nextId = 0;
  return {
    async search(partition, vector, threshold) {
      const entries = partitions.get(partition);
      if (!entries) return null;
      const time = now();
      for (const [id, entry] of entries) if (entry.expiresAt <= time) entries.delete(id);
      const best = bestMatch(entries.values(), vector, threshold);
      if (!best) return null;
      // Most recently used goes last (touching while iterating would visit it again).
      touch(partitions, partition, entries);
      touch(entries, best.entry.id, best.entry);
      return { completion: best.entry.completion, similarity: best.similarity };
    },
    async add(partition, vector, completion) {
      const entries = partitions.get(partition) ?? new Map<number, MemoryEntry>();
      const id = nextId++;
      entries.set(id, { id, vector, completion, expiresAt: now() + limits.ttlMs });
      evictOldest(entries, limits.maxEntries);
      touch(partitions, partition, entries);
      evictOldest(partitions, limits.maxPartitions);
    },
  };
}
