/** Headers every answer of a request carries, gathered by the steps (GatewayContext.responseHeaders). */
/**
 * The headers a step adds to the answer: a Map with case-insensitive names (stored lower-case).
 * A web `Headers` validates and sorts on every use, which showed on the hot path.
 */
export class ResponseHeaders extends Map<string, string> {
  constructor(entries?: Iterable<readonly [string, string]>) {
    super();
    if (entries) for (const [name, value] of entries) this.set(name, value);
  }
  override set(name: string, value: string): this {
    return super.set(name.toLowerCase(), String(value));
  }
  override get(name: string): string | undefined {
    return super.get(name.toLowerCase());
  }
  override has(name: string): boolean {
    return super.has(name.toLowerCase());
  }
  override delete(name: string): boolean {
    return super.delete(name.toLowerCase());
  }
}
