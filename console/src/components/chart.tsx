/**
 * A uPlot chart of daily series (bars or lines). uPlot draws on a canvas, so the figures are also
 * given as a table for screen readers (`summary`), and the canvas is hidden from them.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'preact/hooks';

export interface Series {
  label: string;
  values: number[];
  color: string;
  kind: 'bars' | 'line';
  /** Which y axis: 'y' (left) or 'y2' (right). */
  scale?: 'y' | 'y2';
  format?(value: number): string;
}

/** Room for the widest tick label (uPlot does not measure them itself). */
const labelRoom = (_u: uPlot, values: string[] | null) => 16 + 7.5 * Math.max(3, ...(values ?? []).map((v) => v.length));

const DAY = 86_400;
const dayToSeconds = (day: string) => Date.parse(day.length === 7 ? `${day}-01T00:00:00Z` : `${day}T00:00:00Z`) / 1000;
/** Ticks at least this many CSS pixels apart ("11/26" plus room). */
const TICK_SPACE = 56;
/** Days between two ticks: the first of these that leaves TICK_SPACE between labels. */
const TICK_STEPS = [1, 2, 3, 7, 14, 28, 56, 91, 182, 364];

/**
 * The x axis is days, each point a day at 00:00 UTC (the day strings of the API, in the account's
 * zone, encoded as UTC so no browser zone shifts them). Ticks sit on those days only, never on
 * hours: uPlot's own time ticks would label a one-day range by the hour.
 */
function dayTicks(u: uPlot, _axis: number, min: number, max: number): number[] {
  const days = (u.data[0] as number[]).filter((x) => x >= min && x <= max);
  const width = u.bbox.width / uPlot.pxRatio;
  const room = Math.max(1, Math.floor(width / TICK_SPACE));
  const step = TICK_STEPS.find((s) => Math.ceil(days.length / s) <= room) ?? TICK_STEPS[TICK_STEPS.length - 1]!;
  return days.filter((_, i) => i % step === 0);
}

/** "11/26", with the year under the first tick and under the first of each new year. */
function dayLabels(_u: uPlot, ticks: number[]): string[] {
  return ticks.map((x, i) => {
    const [year, month, day] = new Date(x * 1000).toISOString().slice(0, 10).split('-');
    const label = `${Number(month)}/${Number(day)}`;
    const newYear = i === 0 || new Date(ticks[i - 1]! * 1000).getUTCFullYear() !== Number(year);
    return newYear ? `${label}\n${year}` : label;
  });
}

export function DailyChart(props: { title: string; days: string[]; series: Series[]; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current!;
    const bars = uPlot.paths.bars!({ size: [0.6, 40] });
    const hasY2 = props.series.some((s) => s.scale === 'y2');
    const xs = props.days.map(dayToSeconds);
    const first = xs[0] ?? 0;
    const last = xs[xs.length - 1] ?? first;
    // Axis and grid in the theme's colours (read when drawn: light or dark).
    const style = getComputedStyle(document.documentElement);
    const axis = style.getPropertyValue('--muted').trim() || '#3d4451';
    const gridLine = style.getPropertyValue('--line').trim() || '#e3e6ea';
    const options: uPlot.Options = {
      width: element.clientWidth || 600,
      height: props.height ?? 220,
      scales: {
        // Within the days shown (uPlot widens a single point's range to 1,000 days), plus half a
        // day of room on each side, so the first and last bars are drawn whole.
        x: { time: true, range: (_u, min, max) => [Math.max(min, first) - DAY / 2, Math.min(max, last) + DAY / 2] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        y2: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        { stroke: axis, grid: { stroke: gridLine }, splits: dayTicks, values: dayLabels },
        { stroke: axis, grid: { stroke: gridLine }, size: labelRoom, values: (_u, values) => values.map((v) => props.series[0]?.format?.(v) ?? String(v)) },
        ...(hasY2 ? [{ scale: 'y2', side: 1, stroke: axis, grid: { show: false }, size: labelRoom } as uPlot.Axis] : []),
      ],
      series: [
        {},
        ...props.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          fill: s.kind === 'bars' ? `${s.color}cc` : undefined,
          width: s.kind === 'bars' ? 0 : 2,
          paths: s.kind === 'bars' ? bars : undefined,
          points: { show: s.kind === 'line' },
          scale: s.scale ?? 'y',
          value: (_u: uPlot, v: number | null) => (v == null ? '—' : (s.format?.(v) ?? String(v))),
        })),
      ],
      legend: { live: false },
    };
    const plot = new uPlot(options, [xs, ...props.series.map((s) => s.values)], element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: props.height ?? 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.days, props.series]);

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} aria-hidden="true" />
      <details class="chart-data">
        <summary>Figures of this chart</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {props.series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.days.map((day, i) => (
              <tr key={day}>
                <th scope="row">{day}</th>
                {props.series.map((s) => (
                  <td key={s.label}>{s.format ? s.format(s.values[i] ?? 0) : s.values[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
