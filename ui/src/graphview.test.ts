import { describe, expect, it } from "vitest";
import { NO_COMMUNITY, type GraphView, type PageId } from "./bindings";
import { EDGE_FLOATS, edgeBuffer } from "./graphgl";
import { areaToLoad, bySize, colour, fitCamera, labelled, labelledInView, linksInView, nodeAt, nodeDomId, nodeLabel, ringed, toLayout, toScreen, unclutteredLabels, visibleNodes, zoomAt, type Camera } from "./graphview";

/** A view of `n` nodes on a line, node i at (i*10, 0) with size i. */
function line(n: number): GraphView {
  return {
    page_ids: Array.from({ length: n }, (_, i) => (i === n - 1 ? null : ((i + 100) as PageId))),
    titles: Array.from({ length: n }, (_, i) => `Node ${i}`),
    told_apart: [],
    kinds: Array.from({ length: n }, (_, i) => (i === n - 1 ? "wanted" : "topic")),
    xs: Array.from({ length: n }, (_, i) => i * 10),
    ys: Array.from({ length: n }, () => 0),
    sizes: Array.from({ length: n }, (_, i) => i),
    communities: Array.from({ length: n }, (_, i) => i % 2),
    edges: [],
    matched: n,
    overview: false,
    area_whole: true,
    bounds: n ? { min_x: 0, min_y: 0, max_x: (n - 1) * 10, max_y: 0 } : null,
    centre: null,
    top_communities: [],
    layout: { phase: "current", running: false, laid_out_nodes: n, took_ms: 1 },
  };
}

describe("zooming into an overview", () => {
  /** An overview of a 1000×1000 plane: the largest nodes only, the rest left out. */
  function overview(): GraphView {
    return { ...line(3), overview: true, area_whole: false, bounds: { min_x: 0, min_y: 0, max_x: 1000, max_y: 1000 } };
  }
  const whole: Camera = { x: 500, y: 500, scale: 0.4 };

  it("reads nothing again while the whole graph is in view, or for a view that is no overview", () => {
    expect(areaToLoad(overview(), null, whole, 500, 500)).toBeNull();
    expect(areaToLoad(line(3), null, { x: 5, y: 0, scale: 100 }, 500, 500)).toBeNull();
    // Looking past every node: nothing there to read.
    expect(areaToLoad(overview(), null, { x: 5000, y: 5000, scale: 1 }, 500, 500)).toBeNull();
  });

  it("reads the part in view, with a margin, once the view is zoomed in on it", () => {
    // 100×100 of the plane in view, around (200, 300).
    const cam: Camera = { x: 200, y: 300, scale: 5 };
    const area = areaToLoad(overview(), null, cam, 500, 500);
    expect(area).toEqual({ min_x: 100, min_y: 200, max_x: 300, max_y: 400 });
    // Read and whole: panning within it, or zooming further in, needs nothing more.
    const read = { ...overview(), area_whole: true };
    expect(areaToLoad(read, area, { ...cam, x: 240 }, 500, 500)).toBeNull();
    expect(areaToLoad(read, area, { ...cam, scale: 50 }, 500, 500)).toBeNull();
    // Panned out of it: the new part is read.
    expect(areaToLoad(read, area, { ...cam, x: 600 }, 500, 500)).toEqual({ min_x: 500, min_y: 200, max_x: 700, max_y: 400 });
  });

  it("reads a part that was not whole again once zoomed in further, cut to the graph", () => {
    const cam: Camera = { x: 200, y: 300, scale: 5 };
    const area = areaToLoad(overview(), null, cam, 500, 500)!;
    const partial = overview();
    expect(areaToLoad(partial, area, { ...cam, scale: 10 }, 500, 500)).toBeNull();
    expect(areaToLoad(partial, area, { ...cam, scale: 21 }, 500, 500)).not.toBeNull();
    // At the plane's corner the margin is cut to the bounds.
    expect(areaToLoad(partial, null, { x: 0, y: 0, scale: 5 }, 500, 500)).toEqual({ min_x: 0, min_y: 0, max_x: 100, max_y: 100 });
  });
});

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

  it("shows a node told apart by the core's label, every other node by its title", () => {
    const g = line(3);
    g.told_apart = [{ node: 1, label: "Node 1 (saved answer)" }];
    expect([0, 1, 2].map((i) => nodeLabel(g, i))).toEqual(["Node 0", "Node 1 (saved answer)", "Node 2"]);
  });

  it("names list entries by page id, wanted pages by index; wanted pages are grey", () => {
    const g = line(3);
    expect(nodeDomId(g, 0)).toBe("graph-node-100");
    expect(nodeDomId(g, 2)).toBe("graph-wanted-2");
    expect(colour("wanted", 0, "community")).toBe(colour("wanted", 5, "kind"));
    expect(colour("topic", 0, "community")).not.toBe(colour("topic", 1, "community"));
    // A draft of a first layout has no communities yet: coloured by kind meanwhile.
    expect(colour("topic", NO_COMMUNITY, "community")).toBe(colour("topic", 0, "kind"));
    expect(colour("answer", NO_COMMUNITY, "community")).toBe(colour("answer", 0, "kind"));
  });
});

/** Whether the segment a–b has a point in the w×h view, found another way than the screen's
 *  (an end inside, or the segment meets one of the view's four sides). */
function meetsView(ax: number, ay: number, bx: number, by: number, w: number, h: number): boolean {
  const inside = (x: number, y: number) => x >= 0 && x <= w && y >= 0 && y <= h;
  if (inside(ax, ay) || inside(bx, by)) return true;
  const turn = (px: number, py: number, qx: number, qy: number, rx: number, ry: number) => Math.sign((qx - px) * (ry - py) - (qy - py) * (rx - px));
  const meets = (cx: number, cy: number, dx: number, dy: number) =>
    turn(ax, ay, bx, by, cx, cy) * turn(ax, ay, bx, by, dx, dy) <= 0 && turn(cx, cy, dx, dy, ax, ay) * turn(cx, cy, dx, dy, bx, by) <= 0;
  return meets(0, 0, w, 0) || meets(w, 0, w, h) || meets(w, h, 0, h) || meets(0, h, 0, 0);
}

describe("both renderers show the same", () => {
  /** Nodes 0–1 on either side of a 400×100 view, 2–3 both left of it, 4–5 round its
   *  top-left corner without entering, 6 inside; links 0–1, 2–3, 4–5, 6–2. */
  function around(): { g: GraphView; cam: Camera } {
    const g = line(7);
    g.xs = [-100, 500, -300, -50, -60, 30, 200];
    g.ys = [50, 50, 20, 80, 30, -60, 50];
    g.sizes = g.sizes.map(() => 1);
    g.edges = [0, 1, 2, 3, 4, 5, 6, 2];
    // Layout units are pixels, the layout point (200, 50) at the view's centre.
    return { g, cam: { x: 200, y: 50, scale: 1 } };
  }

  it("the canvas draws a link crossing the view between two nodes off screen, as WebGL does", () => {
    const { g, cam } = around();
    expect(visibleNodes(g, cam, 400, 100)).toEqual([6]);
    // 0–1 crosses the view; 6–2 has an end in it; 2–3 lies left of it; 4–5 passes the corner.
    expect(linksInView(g, cam, 400, 100)).toEqual([0, 3]);
  });

  it("the canvas draws exactly the links WebGL's lines put in the view, from any camera", () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const g = line(300);
    g.xs = g.xs.map(() => rnd() * 1000);
    g.ys = g.ys.map(() => rnd() * 700);
    g.sizes = g.sizes.map(() => Math.floor(rnd() ** 3 * 30));
    g.edges = Array.from({ length: 1800 }, () => Math.floor(rnd() * 300));
    const w = 800, h = 500;
    const cams: Camera[] = [fitCamera(g, w, h), { x: 500, y: 350, scale: 4 }, { x: 120, y: 600, scale: 9 }, { x: 500, y: 350, scale: 25 }, { x: -400, y: 350, scale: 1 }];
    let crossing = 0;
    for (const cam of cams) {
      // WebGL draws every line of its buffer, clipped to the view.
      const lines = edgeBuffer(g);
      const gl: string[] = [];
      for (let o = 0; o < lines.length; o += EDGE_FLOATS) {
        const [ax, ay] = toScreen(cam, w, h, lines[o], lines[o + 1]);
        const [bx, by] = toScreen(cam, w, h, lines[o + 2], lines[o + 3]);
        if (meetsView(ax, ay, bx, by, w, h)) gl.push(`${lines[o]},${lines[o + 1]},${lines[o + 2]},${lines[o + 3]}`);
      }
      const shown = new Set(visibleNodes(g, cam, w, h));
      const canvas = linksInView(g, cam, w, h).map((e) => {
        const a = g.edges[2 * e], b = g.edges[2 * e + 1];
        if (!shown.has(a) && !shown.has(b)) crossing++;
        return `${Math.fround(g.xs[a])},${Math.fround(g.ys[a])},${Math.fround(g.xs[b])},${Math.fround(g.ys[b])}`;
      });
      expect(canvas.sort()).toEqual(gl.sort());
    }
    // The cameras close in far enough for links to cross the view with neither end in it.
    expect(crossing).toBeGreaterThan(20);
  });

  it("rings the focused node and a local graph's centre only while they are in view, and labels the focus so", () => {
    const { g, cam } = around();
    expect(ringed(g, cam, 400, 100, 6, null)).toEqual([6]);
    expect(ringed(g, cam, 400, 100, 0, 1)).toEqual([]);
    expect(ringed(g, cam, 400, 100, 0, 6)).toEqual([6]);
    expect(ringed(g, cam, 400, 100, 6, 6)).toEqual([6]);
    // Node 0 is 100 px left of the view: its label would start in it, beside no node.
    const shown = visibleNodes(g, cam, 400, 100);
    expect(labelled(shown, g, cam, 40, 0).has(0)).toBe(false);
    expect(labelledInView(g, bySize(g), cam, 400, 100, 40, 0).has(0)).toBe(false);
    expect(labelled(shown, g, cam, 40, 6).has(6)).toBe(true);
    // Panned so node 0 is just inside: ringed and labelled.
    const near = { ...cam, x: 90 };
    expect(ringed(g, near, 400, 100, 0, null)).toEqual([0]);
    expect(labelledInView(g, bySize(g), near, 400, 100, 40, 0).has(0)).toBe(true);
  });
});

describe("labels in a crowd", () => {
  const box = (node: number, x: number, y: number, w = 60) => ({ node, x, y, w, h: 16 });
  it("leaves out a label that would cover one drawn before it, and keeps the rest", () => {
    const kept = unclutteredLabels([box(7, 100, 100), box(3, 130, 106), box(5, 100, 140), box(9, 165, 100)]);
    expect(kept.map((b) => b.node)).toEqual([7, 5, 9]);
  });
  it("keeps labels that only touch, and the first of any pile", () => {
    const touching = unclutteredLabels([box(1, 0, 0, 50), box(2, 50, 0, 50), box(3, 0, 16, 50)]);
    expect(touching.map((b) => b.node)).toEqual([1, 2, 3]);
    const pile = unclutteredLabels([box(4, 10, 10), box(1, 10, 10), box(2, 12, 11)]);
    expect(pile.map((b) => b.node)).toEqual([4]);
  });
});
