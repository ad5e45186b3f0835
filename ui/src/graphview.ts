// The Graph screen's drawing arithmetic, with no DOM: the camera (layout plane → screen),
// which nodes are in view, which get a label (level of detail), what is under the pointer.
// Positions, sizes and communities come from the core (GraphView): nothing here decides
// what the graph is, only how much of it the window paints.
import { NO_COMMUNITY, type GraphArea, type GraphNodeKind, type GraphView } from "./bindings";

/** Where the camera looks: the layout point at the screen's centre, and pixels per unit. */
export type Camera = { x: number; y: number; scale: number };

/**
 * The camera that shows every node of `g` (or the nodes `only` names) in a `w`×`h` view,
 * leaving `labelRoom` pixels on the right for the labels drawn beside the nodes there.
 */
export function fitCamera(g: GraphView, w: number, h: number, only?: number[], labelRoom = 0): Camera {
  const ids = only ?? g.xs.map((_, i) => i);
  if (!ids.length || w <= 0 || h <= 0) return { x: 0, y: 0, scale: 1 };
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const i of ids) {
    minX = Math.min(minX, g.xs[i]);
    maxX = Math.max(maxX, g.xs[i]);
    minY = Math.min(minY, g.ys[i]);
    maxY = Math.max(maxY, g.ys[i]);
  }
  const spanX = Math.max(maxX - minX, 1e-3);
  const spanY = Math.max(maxY - minY, 1e-3);
  // The labels' room comes out of the width only while half the width is left for nodes.
  const room = Math.min(Math.max(labelRoom, 0), w * 0.5);
  const scale = Math.min((w * 0.85 - room) / spanX, (h * 0.85) / spanY, 40);
  // Centred on the nodes, moved right by half the room so it is all on the right.
  return { x: (minX + maxX) / 2 + room / 2 / scale, y: (minY + maxY) / 2, scale };
}

/** The room a label needs on the right of its node: its text at 12px, cut at 40 characters. */
export const LABEL_ROOM = 150;

/** A layout point on screen. */
export function toScreen(c: Camera, w: number, h: number, x: number, y: number): [number, number] {
  return [(x - c.x) * c.scale + w / 2, (y - c.y) * c.scale + h / 2];
}

/** A screen point in the layout plane. */
export function toLayout(c: Camera, w: number, h: number, sx: number, sy: number): [number, number] {
  return [(sx - w / 2) / c.scale + c.x, (sy - h / 2) / c.scale + c.y];
}

/** The camera zoomed by `factor` around the screen point (sx, sy), which stays put. */
export function zoomAt(c: Camera, w: number, h: number, sx: number, sy: number, factor: number): Camera {
  const scale = Math.min(Math.max(c.scale * factor, 1e-4), 400);
  const [lx, ly] = toLayout(c, w, h, sx, sy);
  return { x: lx - (sx - w / 2) / scale, y: ly - (sy - h / 2) / scale, scale };
}

/** The part of the layout plane a `w`×`h` view of camera `c` shows. */
export function viewArea(c: Camera, w: number, h: number): GraphArea {
  const [min_x, min_y] = toLayout(c, w, h, 0, 0);
  const [max_x, max_y] = toLayout(c, w, h, w, h);
  return { min_x, min_y, max_x, max_y };
}

/** How far an area asked for reaches past the view on each side, as a share of the view's
 *  width and height: panning that far needs no new read. */
const AREA_MARGIN = 0.5;
/** An area that was not whole is asked for again once the view is this many times smaller. */
const AREA_ZOOM = 16;

function clipArea(a: GraphArea, to: GraphArea): GraphArea | null {
  const out = { min_x: Math.max(a.min_x, to.min_x), min_y: Math.max(a.min_y, to.min_y), max_x: Math.min(a.max_x, to.max_x), max_y: Math.min(a.max_y, to.max_y) };
  return out.min_x <= out.max_x && out.min_y <= out.max_y ? out : null;
}
function areaSize(a: GraphArea): number {
  return (a.max_x - a.min_x) * (a.max_y - a.min_y);
}
function areaWithin(a: GraphArea, b: GraphArea): boolean {
  return a.min_x >= b.min_x && a.min_y >= b.min_y && a.max_x <= b.max_x && a.max_y <= b.max_y;
}

/**
 * The part of the layout to read again for the overview `g` — read for the area `loaded`
 * (null: the whole graph) — as camera `c` now shows it in a `w`×`h` view; null when what `g`
 * holds already covers the view. It is read again when the view leaves the loaded part, or
 * when that part was not whole (`g.area_whole`: the core left some of its nodes out) and the
 * view has zoomed in to a sixteenth of it. What is asked for is the view with a margin, cut
 * to the graph's bounds. A view that is no overview holds every node: never read again.
 */
export function areaToLoad(g: GraphView, loaded: GraphArea | null, c: Camera, w: number, h: number): GraphArea | null {
  if (!g.overview || !g.bounds || w <= 0 || h <= 0) return null;
  const view = viewArea(c, w, h);
  const seen = clipArea(view, g.bounds);
  if (!seen) return null; // looking past every node
  const have = loaded ?? g.bounds;
  if (areaWithin(seen, have) && (g.area_whole || areaSize(seen) * AREA_ZOOM >= areaSize(have))) return null;
  const mx = (view.max_x - view.min_x) * AREA_MARGIN, my = (view.max_y - view.min_y) * AREA_MARGIN;
  return clipArea({ min_x: view.min_x - mx, min_y: view.min_y - my, max_x: view.max_x + mx, max_y: view.max_y + my }, g.bounds);
}

/** A node's radius at zoom factor 1, in pixels: grows with its links. */
export function baseRadius(size: number): number {
  return 2.5 + Math.sqrt(size) * 1.4;
}

/** How much the camera's scale grows every node: a little, within bounds. */
export function zoomFactor(scale: number): number {
  return Math.min(Math.max(Math.sqrt(scale), 0.6), 2.5);
}

/** A node's radius on screen, in pixels: grows with its links, a little with the zoom
 * (both renderers draw it so: the canvas here, WebGL from `baseRadius` × `zoomFactor`). */
export function radius(size: number, scale: number): number {
  return baseRadius(size) * zoomFactor(scale);
}

/** Whether node `i` is inside the view, with a margin of its radius: whether any of its disc
 *  is on screen. */
export function inView(g: GraphView, c: Camera, w: number, h: number, i: number): boolean {
  if (i < 0 || i >= g.xs.length) return false;
  const [sx, sy] = toScreen(c, w, h, g.xs[i], g.ys[i]);
  const r = radius(g.sizes[i], c.scale);
  return sx >= -r && sy >= -r && sx <= w + r && sy <= h + r;
}

// Where a screen point lies against the view's rectangle, one bit a side (0: inside).
const LEFT = 1, RIGHT = 2, ABOVE = 4, BELOW = 8;
function outcode(x: number, y: number, w: number, h: number): number {
  return (x < 0 ? LEFT : x > w ? RIGHT : 0) | (y < 0 ? ABOVE : y > h ? BELOW : 0);
}

/** Whether the segment from (ax, ay) to (bx, by), both ends outside the view and not on one
 *  side of it, passes through the view (0 ≤ x ≤ w, 0 ≤ y ≤ h). Liang–Barsky: the part of the
 *  segment left after cutting it by each side's line is not empty. */
function segmentCrosses(ax: number, ay: number, bx: number, by: number, w: number, h: number): boolean {
  const dx = bx - ax, dy = by - ay;
  let t0 = 0, t1 = 1;
  // Each side as p·t ≤ q: left, right, top, bottom.
  for (const [p, q] of [[-dx, ax], [dx, w - ax], [-dy, ay], [dy, h - ay]]) {
    if (p === 0) {
      if (q < 0) return false; // parallel to this side, and beyond it
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

/**
 * The links of `g` with a point in the view (their index: link `e` joins `g.edges[2e]` and
 * `g.edges[2e + 1]`), in the order of `g.edges`. A link crossing the view between two nodes
 * off screen is one of them: it is part of what the view shows, and WebGL draws it so (the
 * GPU clips every line to the view), so the canvas draws exactly these. A link to no node
 * is none of them.
 */
export function linksInView(g: GraphView, c: Camera, w: number, h: number): number[] {
  const n = g.xs.length;
  const sx = new Float64Array(n), sy = new Float64Array(n);
  const code = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const [x, y] = toScreen(c, w, h, g.xs[i], g.ys[i]);
    sx[i] = x;
    sy[i] = y;
    code[i] = outcode(x, y, w, h);
  }
  const out: number[] = [];
  for (let e = 0; e * 2 + 1 < g.edges.length; e++) {
    const a = g.edges[2 * e], b = g.edges[2 * e + 1];
    if (a >= n || b >= n) continue;
    const ca = code[a], cb = code[b];
    if (ca === 0 || cb === 0) out.push(e); // an end on screen
    else if (ca & cb) continue; // both ends beyond the same side
    else if (segmentCrosses(sx[a], sy[a], sx[b], sy[b], w, h)) out.push(e);
  }
  return out;
}

/** The nodes ringed in red: the focused node and a local graph's centre, each only while
 *  its node is in view (a ring marks a node the person can see, in either renderer). */
export function ringed(g: GraphView, c: Camera, w: number, h: number, focus: number | null, centre: number | null): number[] {
  const out: number[] = [];
  for (const i of [focus, centre]) if (i !== null && !out.includes(i) && inView(g, c, w, h, i)) out.push(i);
  return out;
}

/** Every node of `g`, largest first (equal sizes by index): the order of `visibleNodes`. */
export function bySize(g: GraphView): number[] {
  return g.xs.map((_, i) => i).sort((a, b) => g.sizes[b] - g.sizes[a] || a - b);
}

/** The nodes inside the view (with a margin of their radius), largest first. */
export function visibleNodes(g: GraphView, c: Camera, w: number, h: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < g.xs.length; i++) if (inView(g, c, w, h, i)) out.push(i);
  out.sort((a, b) => g.sizes[b] - g.sizes[a] || a - b);
  return out;
}

/** A label goes on any node drawn at least this wide (radius, pixels). */
const LABEL_RADIUS = 9;

/** Which of the visible nodes (largest first) get a label: the `max` largest, and any
 * node drawn big enough to carry one; always the focused node while it is in view (a label
 * off screen would show its text beside no node). */
export function labelled(visible: number[], g: GraphView, c: Camera, max = 40, focus: number | null = null): Set<number> {
  const out = new Set<number>();
  for (const i of visible) {
    if (out.size < max || radius(g.sizes[i], c.scale) >= LABEL_RADIUS) out.add(i);
    if (out.size >= max * 3) break;
  }
  if (focus !== null && visible.includes(focus)) out.add(focus);
  return out;
}

/**
 * The same labels as `labelled(visibleNodes(g, c, w, h), g, c, max, focus)`, found without
 * listing every node in view: `largest` is `bySize(g)`, walked until no node left could get
 * a label. What WebGL's frames use, so a frame does not cost a pass over every node.
 */
export function labelledInView(g: GraphView, largest: number[], c: Camera, w: number, h: number, max = 40, focus: number | null = null): Set<number> {
  const out = new Set<number>();
  for (const i of largest) {
    // Sizes only fall from here on, and so do radii: once `max` are labelled, a node too
    // small for a label means no later one gets one.
    if (out.size >= max && radius(g.sizes[i], c.scale) < LABEL_RADIUS) break;
    if (!inView(g, c, w, h, i)) continue;
    out.add(i);
    if (out.size >= max * 3) break;
  }
  if (focus !== null && inView(g, c, w, h, focus)) out.add(focus);
  return out;
}

/** A label as drawn: its node, and the box its text takes on screen. */
export type LabelBox = { node: number; x: number; y: number; w: number; h: number };

/**
 * Which labels are drawn where many crowd together: in the order given (the focused node's
 * first, then the largest), each label whose box would overlap one already kept, by more
 * than a pixel, is left out, so the dense middle of an overview reads instead of piling
 * text on text. The focused node's label, first, is always kept.
 */
export function unclutteredLabels(boxes: LabelBox[]): LabelBox[] {
  const kept: LabelBox[] = [];
  for (const b of boxes) {
    const hits = kept.some((k) => b.x + 1 < k.x + k.w && k.x + 1 < b.x + b.w && b.y + 1 < k.y + k.h && k.y + 1 < b.y + b.h);
    if (!hits) kept.push(b);
  }
  return kept;
}

/** The node under the screen point (sx, sy), the topmost (last drawn) one, or null. */
export function nodeAt(g: GraphView, visible: number[], c: Camera, w: number, h: number, sx: number, sy: number): number | null {
  let best: number | null = null;
  let bestD = Infinity;
  for (const i of visible) {
    const [x, y] = toScreen(c, w, h, g.xs[i], g.ys[i]);
    const r = Math.max(radius(g.sizes[i], c.scale), 5);
    const d = (x - sx) ** 2 + (y - sy) ** 2;
    if (d <= r * r && d < bestD) {
      best = i;
      bestD = d;
    }
  }
  return best;
}

/** Links are drawn grey (this level, 0–255) at this opacity, one pixel wide. */
export const EDGE_GREY = 128;
/** See EDGE_GREY. */
export const EDGE_ALPHA = 0.28;
/** The ring around the focused node and a local graph's centre. */
export const RING_COLOUR = "#d4252a";

const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8"];

/** A node's colour: by kind (topic, answer, wanted) or by community. */
export function colour(kind: GraphNodeKind, community: number, by: "kind" | "community"): string {
  if (kind === "wanted") return "#b8b8b8";
  // No community yet (a draft of a first layout): by kind.
  if (by === "kind" || community === NO_COMMUNITY) return kind === "answer" ? "#59a14f" : "#4e79a7";
  return PALETTE[community % PALETTE.length];
}

const toldApart = new WeakMap<GraphView, Map<number, string>>();

/** What node `i` is shown as: the label the core gave it when it is told apart from nodes
 *  whose names read the same (`told_apart`), else its title. */
export function nodeLabel(g: GraphView, i: number): string {
  if (!g.told_apart.length) return g.titles[i];
  let labels = toldApart.get(g);
  if (!labels) toldApart.set(g, (labels = new Map(g.told_apart.map((l) => [l.node, l.label]))));
  return labels.get(i) ?? g.titles[i];
}

/** What the DOM id of a node's entry in the node list is: `graph-node-<page id>` for a
 * page, `graph-wanted-<index>` for a wanted page (its index in this view). */
export function nodeDomId(g: GraphView, i: number): string {
  const id = g.page_ids[i];
  return id === null ? `graph-wanted-${i}` : `graph-node-${id}`;
}
