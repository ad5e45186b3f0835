import { describe, expect, it } from "vitest";
import type { GraphView, PageId } from "./bindings";
import { createGraphGl, drawOrder, EDGE_FLOATS, edgeBuffer, NODE_FLOATS, NODE_VERTICES, nodeBuffer, rgb } from "./graphgl";
import { baseRadius, colour } from "./graphview";

/** Four nodes: 0 (size 1), 1 (size 5), 2 (size 2, wanted), 3 (size 5); links 0–1, 2–0, 3–1. */
function small(): GraphView {
  return {
    page_ids: [10, 11, null, 13] as (PageId | null)[],
    titles: ["A", "B", "C", "D"],
    told_apart: [],
    kinds: ["topic", "answer", "wanted", "topic"],
    xs: [0, 10, -5, 20],
    ys: [1, 2, 3, 4],
    sizes: [1, 5, 2, 5],
    communities: [0, 1, 0, 2],
    edges: [0, 1, 2, 0, 3, 1],
    matched: 4,
    overview: false,
    area_whole: true,
    bounds: { min_x: -5, min_y: 1, max_x: 20, max_y: 4 },
    centre: null,
    top_communities: [],
    layout: { phase: "current", running: false, laid_out_nodes: 4, took_ms: 1 },
  };
}

/** The floats of one node's first vertex in a node buffer, by its place in draw order. */
function vertex(buf: Float32Array, place: number) {
  const o = place * NODE_VERTICES * NODE_FLOATS;
  return { x: buf[o], y: buf[o + 1], radius: buf[o + 4], rgb: [buf[o + 5], buf[o + 6], buf[o + 7]] };
}

describe("the WebGL buffers built from a GraphView", () => {
  it("hold every node as six vertices, smallest first as the canvas draws them, at its position, radius and colour", () => {
    const g = small();
    const buf = nodeBuffer(g, "community");
    expect(buf.length).toBe(4 * NODE_VERTICES * NODE_FLOATS);
    // Sizes 1, 2, 5, 5: of the two largest, the lower index is drawn last (on top), as the
    // canvas does (it draws visibleNodes, largest then lowest index first, in reverse).
    expect(drawOrder(g)).toEqual([0, 2, 3, 1]);
    drawOrder(g).forEach((i, place) => {
      const v = vertex(buf, place);
      expect([v.x, v.y]).toEqual([g.xs[i], g.ys[i]]);
      expect(v.radius).toBeCloseTo(baseRadius(g.sizes[i]), 5);
      const want = rgb(colour(g.kinds[i], g.communities[i], "community"));
      v.rgb.forEach((c, k) => expect(c).toBeCloseTo(want[k], 6));
    });
    // The six corners of a node cover its square: two triangles, each corner at ±1.
    const corners = Array.from({ length: NODE_VERTICES }, (_, v) => `${buf[v * NODE_FLOATS + 2]},${buf[v * NODE_FLOATS + 3]}`);
    expect(new Set(corners)).toEqual(new Set(["-1,-1", "1,-1", "-1,1", "1,1"]));
  });

  it("colour by kind or by community, wanted pages grey either way", () => {
    const g = small();
    const byKind = nodeBuffer(g, "kind");
    const byCommunity = nodeBuffer(g, "community");
    const place = (i: number) => drawOrder(g).indexOf(i);
    expect(vertex(byKind, place(1)).rgb).not.toEqual(vertex(byCommunity, place(1)).rgb);
    expect(vertex(byKind, place(2)).rgb).toEqual(vertex(byCommunity, place(2)).rgb);
    expect(vertex(byKind, place(2)).rgb.map((c) => Math.round(c * 255))).toEqual([0xb8, 0xb8, 0xb8]);
  });

  it("hold every link once, those of the largest nodes first; a link to no node is left out", () => {
    const g = small();
    const buf = edgeBuffer(g);
    expect(buf.length).toBe(3 * EDGE_FLOATS);
    // 0–1 and 3–1 touch a node of size 5 (in their order), 2–0 only sizes 2 and 1.
    expect(Array.from(buf)).toEqual([0, 1, 10, 2, 20, 4, 10, 2, -5, 3, 0, 1]);
    expect(edgeBuffer({ ...g, edges: [0, 1, 0, 9] }).length).toBe(EDGE_FLOATS);
    expect(edgeBuffer({ ...g, edges: [] }).length).toBe(0);
  });

  it("refuse a colour that is not #rrggbb", () => {
    expect(rgb("#ff8000")).toEqual([1, 128 / 255, 0]);
    expect(() => rgb("red")).toThrow(/red/);
  });
});

/** A stand-in for a WebGL driver: every call succeeds unless `compiles` is false; it records
 *  the calls that matter to the screen (uploads, draws, the context released). */
function fakeGl(compiles = true) {
  const calls: { uploads: number[]; draws: [number, number][]; lost: number } = { uploads: [], draws: [], lost: 0 };
  const constants = { LINES: 1, TRIANGLES: 4, COMPILE_STATUS: 0x8b81, LINK_STATUS: 0x8b82 };
  const gl = new Proxy(constants as Record<string | symbol, unknown>, {
    get(target, name) {
      if (name in target) return target[name];
      if (name === "getShaderParameter" || name === "getProgramParameter") return () => compiles;
      if (name === "getAttribLocation") return () => 0;
      if (name === "bufferData") return (_: number, data: Float32Array) => calls.uploads.push(data.length);
      if (name === "drawArrays") return (mode: number, _first: number, count: number) => calls.draws.push([mode, count]);
      if (name === "getExtension") return () => ({ loseContext: () => calls.lost++ });
      if (typeof name === "string" && name.startsWith("create")) return () => ({});
      return () => null;
    },
  });
  return { gl, calls };
}

/** A canvas whose getContext answers `context` (or throws it), recording what it was asked. */
function canvasGiving(context: unknown) {
  const asked: string[] = [];
  const listeners = new Map<string, EventListener>();
  const canvas = {
    width: 0,
    height: 0,
    getContext(kind: string) {
      asked.push(kind);
      if (context instanceof Error) throw context;
      return context;
    },
    addEventListener: (t: string, f: EventListener) => listeners.set(t, f),
    removeEventListener: (t: string, f: EventListener) => listeners.get(t) === f && listeners.delete(t),
  };
  return { canvas: canvas as unknown as HTMLCanvasElement, asked, listeners };
}

describe("choosing the renderer", () => {
  it("falls back to the canvas when no WebGL context can be created", () => {
    const none = canvasGiving(null);
    expect(createGraphGl(none.canvas, () => {})).toBeNull();
    expect(none.asked).toEqual(["webgl", "experimental-webgl"]);
    expect(none.listeners.size).toBe(0);
    expect(createGraphGl(canvasGiving(new Error("blocked")).canvas, () => {})).toBeNull();
  });

  it("falls back, and lets the context go, when the shaders do not compile", () => {
    const { gl, calls } = fakeGl(false);
    const c = canvasGiving(gl);
    expect(createGraphGl(c.canvas, () => {})).toBeNull();
    expect(calls.lost).toBe(1);
    expect(c.listeners.size).toBe(0);
  });

  it("draws every node and as many links as asked; destroyed, it frees the context and its listener", () => {
    const { gl, calls } = fakeGl();
    const c = canvasGiving(gl);
    const r = createGraphGl(c.canvas, () => {})!;
    expect(r).not.toBeNull();
    r.setGraph(small(), "kind");
    expect(calls.uploads).toEqual([4 * NODE_VERTICES * NODE_FLOATS, 3 * EDGE_FLOATS]);
    expect(r.edgeCount).toBe(3);
    r.draw({ x: 0, y: 0, scale: 1 }, 300, 200, 2, Infinity);
    expect([c.canvas.width, c.canvas.height]).toEqual([600, 400]);
    r.draw({ x: 0, y: 0, scale: 1 }, 300, 200, 1, 1); // moving: the first link only
    expect(calls.draws).toEqual([
      [1, 6],
      [4, 24],
      [1, 2],
      [4, 24],
    ]);
    expect(c.listeners.has("webglcontextlost")).toBe(true);
    r.destroy();
    expect(calls.lost).toBe(1);
    expect(c.listeners.size).toBe(0);
    r.draw({ x: 0, y: 0, scale: 1 }, 300, 200, 1, Infinity);
    expect(calls.draws.length).toBe(4);
  });

  it("tells the screen when the context is lost, and draws no more", () => {
    const { gl, calls } = fakeGl();
    const c = canvasGiving(gl);
    let told = 0;
    const r = createGraphGl(c.canvas, () => told++)!;
    r.setGraph(small(), "kind");
    c.listeners.get("webglcontextlost")!({ preventDefault() {} } as Event);
    expect(told).toBe(1);
    expect(c.listeners.size).toBe(0);
    r.draw({ x: 0, y: 0, scale: 1 }, 300, 200, 1, Infinity);
    expect(calls.draws).toEqual([]);
  });
});
