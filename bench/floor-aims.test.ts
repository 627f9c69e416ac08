import { describe, expect, it } from 'vitest';
import { aimsMarkdown, floorAims, type FloorFigures } from './floor-aims.ts';

const LABELS = { connections: 50, concurrency: 50, rate: 500, loadedSeconds: 20 };
const floor: FloorFigures = { rps: 10_000, streamsPerSecond: 5_000, addedFirstByteP50: 2, addedPacedP99: 0.4, idleRss: 80, loadedRss: 120 };

describe('floorAims (issue 18 verdicts against the floor of the same run)', () => {
  it('meets each aim at its bound and misses it just past', () => {
    const atBounds: FloorFigures = { rps: 7_000, streamsPerSecond: 3_500, addedFirstByteP50: 4, addedPacedP99: 0.9, idleRss: 99, loadedRss: 159 };
    expect(floorAims(floor, atBounds, LABELS).map((row) => row.met)).toEqual([true, true, true, true, true, true]);
    const past: FloorFigures = { rps: 6_999, streamsPerSecond: 3_499, addedFirstByteP50: 4.01, addedPacedP99: 0.91, idleRss: 100, loadedRss: 160 };
    expect(floorAims(floor, past, LABELS).map((row) => row.met)).toEqual([false, false, false, false, false, false]);
  });

  it('misses a memory aim it could not read, and prints a verdict per row', () => {
    const rows = floorAims(floor, { ...floor, idleRss: undefined }, LABELS);
    expect(rows[4]).toMatchObject({ gateway: '–', met: false });
    const table = aimsMarkdown(rows).split('\n');
    expect(table).toHaveLength(2 + rows.length);
    expect(table[2]).toBe('| max throughput, c=50 | 10,000 req/s | 10,000 (×1.00) | ≥ ×0.7 of the floor | met |');
    expect(table[6]).toMatch(/\| resident memory, idle after start \| 80 MiB \| – \| < 100 MiB \| MISSED \|$/);
  });
});
