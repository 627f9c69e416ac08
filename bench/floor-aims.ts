/**
 * Issue 18's aims: our gateway judged against the floor (bench/floor-proxy.ts) measured in the
 * same run, so that the machine's speed of the day cancels out. Throughput is judged as a ratio
 * to the floor, added latency as a margin over the floor's, memory against fixed ceilings.
 */

/** One target's figures for the issue-18 rows (latencies already minus the direct target's). */
export interface FloorFigures {
  rps: number;
  streamsPerSecond: number;
  addedFirstByteP50: number;
  addedPacedP99: number;
  idleRss: number | undefined;
  loadedRss: number | undefined;
}

export interface AimRow {
  label: string;
  floor: string;
  gateway: string;
  aim: string;
  met: boolean;
}

export const MIN_THROUGHPUT_RATIO = 0.7;
export const MAX_FIRST_BYTE_MARGIN_MS = 2;
export const MAX_P99_MARGIN_MS = 0.5;
export const MAX_IDLE_RSS_MIB = 100;
export const MAX_LOADED_RSS_MIB = 160;

const whole = (value: number) => Math.round(value).toLocaleString('en-US');
const plusMs = (ms: number) => `${ms >= 0 ? '+' : '−'}${Math.abs(ms).toFixed(2)} ms`;
const mib = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '–' : `${value.toFixed(0)} MiB`);

function ratioRow(label: string, unit: string, floor: number, gateway: number): AimRow {
  const ratio = gateway / floor;
  return {
    label,
    floor: `${whole(floor)} ${unit}`,
    gateway: `${whole(gateway)} (×${ratio.toFixed(2)})`,
    aim: `≥ ×${MIN_THROUGHPUT_RATIO} of the floor`,
    met: ratio >= MIN_THROUGHPUT_RATIO,
  };
}

function marginRow(label: string, floor: number, gateway: number, margin: number): AimRow {
  return { label, floor: plusMs(floor), gateway: plusMs(gateway), aim: `≤ the floor's + ${margin} ms`, met: gateway <= floor + margin };
}

/** Memory is the gateway's own budget: the floor's figure is shown for scale, not judged. */
function memoryRow(label: string, floor: number | undefined, gateway: number | undefined, ceiling: number): AimRow {
  return { label, floor: mib(floor), gateway: mib(gateway), aim: `< ${ceiling} MiB`, met: gateway !== undefined && gateway < ceiling };
}

export function floorAims(floor: FloorFigures, gateway: FloorFigures, labels: { connections: number; concurrency: number; rate: number; loadedSeconds: number }): AimRow[] {
  return [
    ratioRow(`max throughput, c=${labels.connections}`, 'req/s', floor.rps, gateway.rps),
    ratioRow(`streams completed per second, c=${labels.concurrency}`, 'streams/s', floor.streamsPerSecond, gateway.streamsPerSecond),
    marginRow(`added first byte of a stream at c=${labels.concurrency}, p50`, floor.addedFirstByteP50, gateway.addedFirstByteP50, MAX_FIRST_BYTE_MARGIN_MS),
    marginRow(`added p99 at ${labels.rate} req/s`, floor.addedPacedP99, gateway.addedPacedP99, MAX_P99_MARGIN_MS),
    memoryRow('resident memory, idle after start', floor.idleRss, gateway.idleRss, MAX_IDLE_RSS_MIB),
    memoryRow(`resident memory after ${labels.loadedSeconds} s at c=${labels.connections}`, floor.loadedRss, gateway.loadedRss, MAX_LOADED_RSS_MIB),
  ];
}

const verdict = (row: AimRow) => (row.met ? 'met' : 'MISSED');
const cellsOf = (row: AimRow) => [row.label, row.floor, row.gateway, row.aim, verdict(row)];
const HEADER = ['', 'floor', 'gateway', 'aim', 'verdict'];

export function aimsText(rows: AimRow[]): string {
  const body = rows.map(cellsOf);
  const widths = HEADER.map((_, i) => Math.max(...[HEADER, ...body].map((cells) => cells[i].length)));
  // Label and aim read as text (left), figures as numbers (right).
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i >= 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ').trimEnd();
  return [line(HEADER), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export function aimsMarkdown(rows: AimRow[]): string {
  const lines = [`| | ${HEADER.slice(1).join(' | ')} |`, '|---|---:|---:|---:|---|'];
  for (const row of rows) lines.push(`| ${cellsOf(row).join(' | ')} |`);
  return lines.join('\n');
}
