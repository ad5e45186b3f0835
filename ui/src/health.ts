// The Health screen's figures and trend chart, from what the core's lint run sent. The
// rules (what is a finding, what counts) are the core's; this only lays them out.
import type { HealthPointView } from "./bindings";

/** One figure of the compact health line. */
export type Figure = { key: string; label: string; value: string; bad: boolean };

/** Rounds a percentage for a compact line: whole numbers, one decimal under 10. */
export function percent(v: number): string {
  const r = v < 10 && v > 0 && !Number.isInteger(v) ? Math.round(v * 10) / 10 : Math.round(v);
  return `${r}%`;
}

/** The compact health figures (the library header and the Health screen): link resolution,
 * orphans, wanted, stale, ungrounded, duplicates. `bad` marks one worth a look. */
export function healthFigures(p: HealthPointView): Figure[] {
  const count = (key: string, n: number, one: string, many = `${one}s`): Figure => ({
    key,
    label: n === 1 ? one : many,
    value: String(n),
    bad: n > 0,
  });
  return [
    { key: "links", label: "links resolve", value: percent(p.link_resolution), bad: p.link_resolution < 90 },
    { key: "orphans", label: "orphans", value: percent(p.orphan_share), bad: p.orphan_share > 50 },
    count("wanted", p.wanted, "wanted", "wanted"),
    count("stale", p.stale, "stale", "stale"),
    count("ungrounded", p.ungrounded, "ungrounded", "ungrounded"),
    count("duplicates", p.duplicates, "duplicate"),
  ];
}

/** A page count for a person: "1 page", "2 pages". */
export function pagesLabel(n: number): string {
  return n === 1 ? "page" : "pages";
}

/** The figures as one line of text (a tooltip, a screen reader). */
export function figuresLine(p: HealthPointView): string {
  return healthFigures(p)
    .map((f) => `${f.value} ${f.label}`)
    .join(" · ");
}

/** A series of the trend chart: which figure, its colour class, and its scale. */
export type Series = { key: "link_resolution" | "orphan_share" | "wanted" | "stale"; label: string; percent: boolean };

export const TREND_SERIES: Series[] = [
  { key: "link_resolution", label: "links resolve %", percent: true },
  { key: "orphan_share", label: "orphans %", percent: true },
  { key: "wanted", label: "wanted", percent: false },
  { key: "stale", label: "stale", percent: false },
];

/** Where each run's value of `series` sits in a `width` × `height` chart (y grows down,
 * `pad` kept around the plot): percentages on 0–100, counts on 0 to their largest value.
 * One run sits in the middle. */
export function trendPoints(
  runs: HealthPointView[],
  series: Series,
  width: number,
  height: number,
  pad = 6,
): { x: number; y: number; value: number }[] {
  if (!runs.length) return [];
  const values = runs.map((r) => r[series.key]);
  const top = series.percent ? 100 : Math.max(1, ...values);
  const plotW = width - 2 * pad;
  const plotH = height - 2 * pad;
  const step = runs.length > 1 ? plotW / (runs.length - 1) : 0;
  return values.map((value, i) => ({
    x: round(runs.length > 1 ? pad + i * step : width / 2),
    y: round(pad + plotH - (Math.min(value, top) / top) * plotH),
    value,
  }));
}

/** An SVG polyline's `points` attribute. */
export function polyline(points: { x: number; y: number }[]): string {
  return points.map((p) => `${p.x},${p.y}`).join(" ");
}

/** A run's time as the chart labels it: `YYYY-MM-DD HH:MM` (UTC, as stored). */
export function runTime(at: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(at);
  return m ? `${m[1]} ${m[2]}` : at;
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}
