import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartProps {
  /** Accessible name of the chart (the canvas has no text of its own). */
  label: string;
  x: number[];
  y: number[];
  yLabel: string;
  xLabel?: string;
  /** x values are unix seconds */
  time?: boolean;
  height?: number;
  kind?: 'line' | 'bars';
}

/** A one-series uPlot chart; new data updates it in place. */
export function Chart({ label, x, y, yLabel, xLabel, time = false, height = 220, kind = 'line' }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const width = Math.max(320, (box.current?.clientWidth ?? 640) - 8);
    plot.current = new uPlot(
      {
        width,
        height,
        scales: { x: { time } },
        legend: { show: false },
        axes: [
          { label: xLabel, stroke: '#1b1f24' },
          { label: yLabel, stroke: '#1b1f24' },
        ],
        series: [
          {},
          {
            label: yLabel,
            stroke: '#0550ae',
            width: 2,
            fill: kind === 'bars' ? 'rgba(5,80,174,0.35)' : undefined,
            paths: kind === 'bars' ? uPlot.paths.bars!({ size: [0.8, 40] }) : undefined,
            points: { show: kind !== 'bars' && x.length < 40 },
          },
        ],
      },
      [x, y],
      box.current!,
    );
    return () => plot.current?.destroy();
  }, [time, height, kind, xLabel, yLabel]);
  useEffect(() => plot.current?.setData([x, y]), [x, y]);
  return <div class="chart" role="img" aria-label={label} ref={box} />;
}
