import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Columns } from '../usage-series';

export interface ChartSeries {
  label: string;
  colour: string;
  /** Dashed: the second series of a chart, told apart without colour. */
  dashed?: boolean;
}

/**
 * A uPlot line chart. The canvas is hidden from screen readers: the table beside the charts
 * holds the same figures.
 */
export function Chart(props: { title: string; unit: string; data: Columns; series: ChartSeries[]; hourly: boolean }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current!;
    const plot = new uPlot(
      {
        width: Math.max(280, Math.min(element.clientWidth || 640, 900)),
        height: 220,
        scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(max ?? 1, min ?? 0, 1)] } },
        axes: [{}, { label: props.unit, size: 60 }],
        series: [
          { label: props.hourly ? 'Hour (UTC)' : 'Day (UTC)' },
          ...props.series.map((s) => ({ label: s.label, stroke: s.colour, width: 2, dash: s.dashed ? [6, 4] : undefined, spanGaps: false })),
        ],
        tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      },
      props.data as uPlot.AlignedData,
      element,
    );
    return () => plot.destroy();
  }, [props.data, props.hourly]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={holder} aria-hidden="true" />
    </figure>
  );
}
