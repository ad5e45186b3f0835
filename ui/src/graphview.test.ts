import { describe, expect, it } from "vitest";
import type { GraphView, PageId } from "./bindings";
import { bySize, colour, fitCamera, labelled, labelledInView, nodeAt, nodeDomId, toLayout, toScreen, visibleNodes, zoomAt } from "./graphview";

/** A view of `n` nodes on a line, node i at (i*10, 0) with size i. */
function line(n: number): GraphView {
  return {
    page_ids: Array.from({ length: n }, (_, i) => (i === n - 1 ? null : ((i + 100) as PageId))),
    titles: Array.from({ length: n }, (_, i) => `Node ${i}`),
    kinds: Array.from({ length: n }, (_, i) => (i === n - 1 ? "wanted" : "topic")),
    xs: Array.from({ length: n }, (_, i) => i * 10),
    ys: Array.from({ length: n }, () => 0),
    sizes: Array.from({ length: n }, (_, i) => i),
    communities: Array.from({ length: n }, (_, i) => i % 2),
    edges: [],
    matched: n,
    overview: false,
    centre: null,
    top_communities: [],
    layout: { phase: "current", running: false, laid_out_nodes: n, took_ms: 1 },
  };
}

describe("the graph's camera", () => {
  it("fits every node in the view", () => {
    const g = line(11);
    const c = fitCamera(g, 500, 300);
    for (let i = 0; i < 11; i++) {
      const [x, y] = toScreen(c, 500, 300, g.xs[i], g.ys[i]);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(500);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(300);
    }
  });

  it("leaves room on the right for the labels of the rightmost nodes", () => {
    const g = line(11);
    const room = 150;
    const c = fitCamera(g, 500, 300, undefined, room);
    for (let i = 0; i < 11; i++) {
      const [x] = toScreen(c, 500, 300, g.xs[i], g.ys[i]);
      expect(x).toBeGreaterThanOrEqual(0);
      // A label starts at the node and runs right: the rightmost node leaves it its room.
      expect(x + room).toBeLessThanOrEqual(500);
    }
    // Without room, the rightmost node sits nearer the edge than a label needs.
    const bare = fitCamera(g, 500, 300);
    const [last] = toScreen(bare, 500, 300, g.xs[10], g.ys[10]);
    expect(last + room).toBeGreaterThan(500);
  });

  it("keeps the point under the pointer where it is when zooming", () => {
    const c = { x: 3, y: -2, scale: 1.5 };
    const before = toLayout(c, 400, 300, 120, 80);
    const z = zoomAt(c, 400, 300, 120, 80, 2.5);
    const after = toLayout(z, 400, 300, 120, 80);
    expect(after[0]).toBeCloseTo(before[0], 9);
    expect(after[1]).toBeCloseTo(before[1], 9);
    expect(z.scale).toBeCloseTo(3.75);
  });
});

describe("what is drawn", () => {
  it("lists only the nodes in view, largest first", () => {
    const g = line(11);
    // Looking at x = 0..40 only.
    const c = { x: 20, y: 0, scale: 10 };
    const shown = visibleNodes(g, c, 400, 100);
    expect(shown.length).toBeLessThan(11);
    expect(shown[0]).toBeGreaterThan(shown[shown.length - 1]);
    expect(shown).toContain(2);
    expect(shown).not.toContain(10);
  });

  it("labels the largest nodes in view, and the focused one", () => {
    const g = line(50);
    const c = fitCamera(g, 2000, 200);
    const shown = visibleNodes(g, c, 2000, 200);
    const labels = labelled(shown, g, c, 5, 0);
    expect(labels.has(49)).toBe(true);
    expect(labels.has(0)).toBe(true);
    expect(labels.has(10)).toBe(false);
  });

  it("labels the same nodes when found from the largest down (WebGL's frames) as from the nodes in view", () => {
    // 600 nodes scattered with sizes 0–40, seen from far, near and in between, off-centre.
    let seed = 7;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const g = line(600);
    g.xs = g.xs.map(() => rnd() * 1000);
    g.ys = g.ys.map(() => rnd() * 700);
    g.sizes = g.sizes.map(() => Math.floor(rnd() ** 3 * 40));
    const largest = bySize(g);
    for (const cam of [fitCamera(g, 800, 500), { x: 300, y: 200, scale: 3 }, { x: 900, y: 600, scale: 12 }, { x: 500, y: 350, scale: 0.05 }, { x: -5000, y: 0, scale: 1 }]) {
      for (const [max, focus] of [[40, null], [5, 17], [200, null]] as const) {
        const want = labelled(visibleNodes(g, cam, 800, 500), g, cam, max, focus);
        expect([...labelledInView(g, largest, cam, 800, 500, max, focus)].sort()).toEqual([...want].sort());
      }
    }
    expect(labelledInView(g, largest, { x: -5000, y: 0, scale: 1 }, 800, 500).size).toBe(0);
  });

  it("finds the node under the pointer, and nothing between nodes", () => {
    const g = line(5);
    const c = { x: 20, y: 0, scale: 4 };
    const shown = visibleNodes(g, c, 400, 100);
    const [x, y] = toScreen(c, 400, 100, g.xs[3], g.ys[3]);
    expect(nodeAt(g, shown, c, 400, 100, x + 1, y)).toBe(3);
    expect(nodeAt(g, shown, c, 400, 100, x + 20, y + 30)).toBeNull();
  });

  it("names list entries by page id, wanted pages by index; wanted pages are grey", () => {
    const g = line(3);
    expect(nodeDomId(g, 0)).toBe("graph-node-100");
    expect(nodeDomId(g, 2)).toBe("graph-wanted-2");
    expect(colour("wanted", 0, "community")).toBe(colour("wanted", 5, "kind"));
    expect(colour("topic", 0, "community")).not.toBe(colour("topic", 1, "community"));
  });
});
