/**
 * One writer at a time per config file, in this process: a promise chain per path. Across
 * instances sharing Redis, a change also holds the cluster lease (lease.ts) inside its turn here.
 */
const chains = new Map<string, Promise<unknown>>();

/** Runs `task` after every task queued earlier for `name` has settled (whatever their outcome). */
export function serialize<T>(name: string, task: () => Promise<T>): Promise<T> {
  const previous = chains.get(name) ?? Promise.resolve();
  const run = previous.then(task, task);
  const settled = run.catch(() => undefined);
  chains.set(name, settled);
  // Drop the chain once idle so the map does not grow with every file ever written.
  void settled.then(() => {
    if (chains.get(name) === settled) chains.delete(name);
  });
  return run;
}
