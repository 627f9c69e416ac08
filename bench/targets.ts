/** What the bench sends, and where: straight to the mock, through our gateway, through Portkey. */

export interface Target {
  /** Short label for the tables: `direct`, `gateway`, `portkey`. */
  name: string;
  /** Full URL of the chat completions endpoint. */
  url: string;
  headers: Record<string, string>;
  /** Header sets the load rotates through, one request each (e.g. many keys); `headers` when absent. */
  headerSets?: Array<Record<string, string>>;
}

/** The bench key of bench/gateway.bench.yaml (publicly known: for the bench only). */
export const BENCH_KEY = 'sk-bf-bench-00000000000000000000000000000000';

const messages = [{ role: 'user', content: 'Say hello to the benchmark in a few short words please.' }];

/** A small, typical chat request; the mock echoes the user text back (word by word when streaming). */
export const requestBody = (stream: boolean) =>
  JSON.stringify(stream ? { model: 'gpt-4o-mini', messages, stream: true } : { model: 'gpt-4o-mini', messages });

export function target(name: string, url: string, headers: Record<string, string> = {}, headerSets?: Array<Record<string, string>>): Target {
  const base = { 'content-type': 'application/json', ...headers };
  return { name, url, headers: base, headerSets: headerSets?.map((set) => ({ ...base, ...set })) };
}
