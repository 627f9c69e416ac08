/**
 * A value built on its first use and shared after: what a gateway may never need (the OAuth
 * server, say) costs nothing until a request needs it. A failed build is tried again next time.
 */
export function lazily<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
}
