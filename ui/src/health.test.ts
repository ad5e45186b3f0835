import { describe, expect, it } from "vitest";
import type { HealthPointView } from "./bindings";
import { figuresLine, healthFigures, pagesLabel, percent, polyline, runTime, TREND_SERIES, trendPoints } from "./health";

const run = (over: Partial<HealthPointView> = {}): HealthPointView => ({
  at: "2026-11-25T07:30:12Z",
  trigger: "lint",
  pages: 10,
  link_resolution: 80,
  orphan_share: 20,
  wanted: 3,
  broken_links: 0,
  stale: 0,
  ungrounded: 1,
  duplicates: 1,
  thin: 2,
  ...over,
});

describe("health figures", () => {
  it("rounds shares compactly", () => {
    expect(percent(100)).toBe("100%");
    expect(percent(66.6667)).toBe("67%");
    expect(percent(4.44)).toBe("4.4%");
    expect(percent(0)).toBe("0%");
  });

  it("lists the six figures of the header, marking those worth a look", () => {
    const f = healthFigures(run());
    expect(f.map((x) => x.key)).toEqual(["links", "orphans", "wanted", "stale", "ungrounded", "duplicates"]);
    expect(f.filter((x) => x.bad).map((x) => x.key)).toEqual(["links", "wanted", "ungrounded", "duplicates"]);
    expect(figuresLine(run())).toBe("80% links resolve · 20% orphans · 3 wanted · 0 stale · 1 ungrounded · 1 duplicate");
    expect(figuresLine(run({ duplicates: 2 }))).toContain("2 duplicates");
    expect([pagesLabel(1), pagesLabel(0), pagesLabel(2)]).toEqual(["page", "pages", "pages"]);
  });
});

describe("trend chart", () => {
  const [links, , wanted] = TREND_SERIES;

  it("spreads runs across the width, percentages on 0–100 and counts to their largest", () => {
    const runs = [run({ link_resolution: 50, wanted: 4 }), run({ link_resolution: 100, wanted: 2 })];
    expect(trendPoints(runs, links, 110, 60, 5)).toEqual([
      { x: 5, y: 30, value: 50 },
      { x: 105, y: 5, value: 100 },
    ]);
    expect(trendPoints(runs, wanted, 110, 60, 5)).toEqual([
      { x: 5, y: 5, value: 4 },
      { x: 105, y: 30, value: 2 },
    ]);
  });

  it("puts a single run in the middle and an empty trend nowhere", () => {
    expect(trendPoints([run({ wanted: 0 })], wanted, 100, 40, 0)).toEqual([{ x: 50, y: 40, value: 0 }]);
    expect(trendPoints([], links, 100, 40)).toEqual([]);
  });

  it("writes SVG points and labels run times", () => {
    expect(polyline([{ x: 1, y: 2 }, { x: 3.5, y: 4 }])).toBe("1,2 3.5,4");
    expect(runTime("2026-11-25T07:30:12Z")).toBe("2026-11-25 07:30");
    expect(runTime("2026-11-25 07:30:12")).toBe("2026-11-25 07:30");
  });
});
