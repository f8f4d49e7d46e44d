/**
 * A row-sized bar sparkline of counts, drawn as plain SVG so it renders on the server and costs
 * nothing per row. The label says what it shows; the numbers stay in the table beside it.
 */
export function Sparkline({
  values,
  label,
  width = 96,
  height = 20,
}: {
  values: number[];
  label: string;
  width?: number;
  height?: number;
}) {
  const max = Math.max(1, ...values);
  const step = values.length > 0 ? width / values.length : width;
  return (
    <svg
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
      className="block text-accent"
      data-testid="sparkline"
    >
      <title>{label}</title>
      <line x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} stroke="var(--line)" strokeWidth={1} />
      {values.map((v, i) =>
        v > 0 ? (
          <rect
            // biome-ignore lint/suspicious/noArrayIndexKey: one bar per bucket, in a fixed order.
            key={i}
            x={i * step}
            width={Math.max(1, step - 0.5)}
            y={height - 1 - Math.max(1.5, (v / max) * (height - 2))}
            height={Math.max(1.5, (v / max) * (height - 2))}
            fill="currentColor"
          />
        ) : null,
      )}
    </svg>
  );
}
