import { mkdtemp, rename, rm, symlink, writeFile, mkdir, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentHash, watchConfig, type ConfigWatcher } from './watch.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Long enough for fs events + the 100 ms debounce on a loaded CI machine.
const SETTLE = 700;

let dir: string;
let watcher: ConfigWatcher | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gw-watch-'));
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(file: string) {
  const calls: number[] = [];
  watcher = watchConfig(file, () => {
    calls.push(Date.now());
  });
  await watcher.ready;
  return calls;
}

describe('watchConfig', () => {
  it('reports a change made between the caller loading the file and the watch being in place, and none without one', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const loadedHash = contentHash('a: 1\n');
    await writeFile(file, 'a: 2\n'); // a ConfigMap swap while the gateway was still starting
    const calls: number[] = [];
    watcher = watchConfig(file, () => void calls.push(Date.now()), { loadedHash });
    await watcher.ready;
    await sleep(SETTLE);
    expect(calls).toHaveLength(1);
    await watcher.close();

    const unchanged: number[] = [];
    watcher = watchConfig(file, () => void unchanged.push(Date.now()), { loadedHash: contentHash('a: 2\n') });
    await watcher.ready;
    await sleep(SETTLE);
    expect(unchanged).toHaveLength(0);
  });

  it('reports an in-place edit once', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const calls = await start(file);
    await writeFile(file, 'a: 2\n');
    await sleep(SETTLE);
    expect(calls).toHaveLength(1);
  });

  it('reports a rename-on-save edit once', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const calls = await start(file);
    // What vim/VS Code do: write a sibling temp file, then rename it over the original.
    const tmp = path.join(dir, '.gateway.yaml.tmp');
    await writeFile(tmp, 'a: 2\n');
    await rename(tmp, file);
    await sleep(SETTLE);
    expect(calls).toHaveLength(1);
    // And it keeps watching the new inode afterwards.
    await writeFile(tmp, 'a: 3\n');
    await rename(tmp, file);
    await sleep(SETTLE);
    expect(calls).toHaveLength(2);
  });

  it('reports a Kubernetes ConfigMap symlink swap', async () => {
    // Layout of a mounted ConfigMap: gateway.yaml -> ..data/gateway.yaml, ..data -> ..<timestamp>
    await mkdir(path.join(dir, '..2024_01_01'));
    await writeFile(path.join(dir, '..2024_01_01', 'gateway.yaml'), 'a: 1\n');
    await symlink('..2024_01_01', path.join(dir, '..data'));
    const file = path.join(dir, 'gateway.yaml');
    await symlink(path.join('..data', 'gateway.yaml'), file);
    const calls = await start(file);

    await mkdir(path.join(dir, '..2024_01_02'));
    await writeFile(path.join(dir, '..2024_01_02', 'gateway.yaml'), 'a: 2\n');
    await symlink('..2024_01_02', path.join(dir, '..data_tmp'));
    await rename(path.join(dir, '..data_tmp'), path.join(dir, '..data'));
    // The flip alone must be seen: kubelet removes the old directory only later.
    await sleep(SETTLE);
    expect(calls).toHaveLength(1);
    await rm(path.join(dir, '..2024_01_01'), { recursive: true });
    await sleep(SETTLE);
    expect(calls).toHaveLength(1);
  });

  it('ignores a touch that leaves the content unchanged', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const calls = await start(file);
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    await writeFile(file, 'a: 1\n');
    await sleep(SETTLE);
    expect(calls).toHaveLength(0);
  });

  it('ignores content the gateway wrote itself, but not a later edit', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const calls = await start(file);
    watcher!.ignoreNextContent('a: 2\n');
    await writeFile(file, 'a: 2\n');
    await sleep(SETTLE);
    expect(calls).toHaveLength(0);
    await writeFile(file, 'a: 3\n');
    await sleep(SETTLE);
    expect(calls).toHaveLength(1);
  });

  it('ignores unrelated files in the same directory', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const calls = await start(file);
    await writeFile(path.join(dir, 'other.yaml'), 'b: 1\n');
    await sleep(SETTLE);
    expect(calls).toHaveLength(0);
  });

  it('stops reporting after close', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1\n');
    const calls = await start(file);
    await watcher!.close();
    await writeFile(file, 'a: 2\n');
    await sleep(SETTLE);
    expect(calls).toHaveLength(0);
  });
});
