// The Graph screen's WebGL renderer: the nodes and links of a GraphView at the positions the
// core laid out, through the same camera, radii and colours as the 2D canvas (graphview.ts),
// in two draw calls (links as lines, nodes as discs). Labels, the focus ring, hit tests and
// the node list stay with the screen and its 2D canvas, drawn over this one, so both
// renderers show and answer the same. The buffers are built once per graph (and colouring):
// panning and zooming only change four uniforms. No worker, no eval: shaders are fixed
// strings compiled by the GL driver, which the CSP does not govern.
import type { GraphView } from "./bindings";
import { baseRadius, bySize, colour, EDGE_ALPHA, EDGE_GREY, zoomFactor, type Camera } from "./graphview";

/** How nodes are coloured (as on the canvas). */
export type ColourBy = "kind" | "community";

/** `#rrggbb` as red, green and blue in 0–1. */
export function rgb(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [parseInt(m[1], 16) / 255, parseInt(m[2], 16) / 255, parseInt(m[3], 16) / 255];
}

/** Floats per node vertex: layout x, y; the corner (−1 or 1 on each axis); the radius at
 *  zoom factor 1; red, green, blue. */
export const NODE_FLOATS = 8;
/** Vertices per node: a square of two triangles, the disc cut out of it by the shader. */
export const NODE_VERTICES = 6;
/** Floats per link: both ends' layout x, y. */
export const EDGE_FLOATS = 4;

const CORNERS = [-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1];

/** The order nodes are drawn in: smallest first, so the large ones sit on top (the canvas's
 *  order: the reverse of `visibleNodes`, largest first then by index). */
export function drawOrder(g: GraphView): number[] {
  return bySize(g).reverse();
}

/** Every node as two triangles, in draw order (NODE_FLOATS per vertex). */
export function nodeBuffer(g: GraphView, by: ColourBy): Float32Array {
  const order = drawOrder(g);
  const out = new Float32Array(order.length * NODE_VERTICES * NODE_FLOATS);
  const colours = new Map<string, [number, number, number]>();
  let o = 0;
  for (const i of order) {
    const hex = colour(g.kinds[i], g.communities[i], by);
    let c = colours.get(hex);
    if (!c) colours.set(hex, (c = rgb(hex)));
    const rad = baseRadius(g.sizes[i]);
    for (let v = 0; v < NODE_VERTICES; v++) {
      out[o] = g.xs[i];
      out[o + 1] = g.ys[i];
      out[o + 2] = CORNERS[v * 2];
      out[o + 3] = CORNERS[v * 2 + 1];
      out[o + 4] = rad;
      out[o + 5] = c[0];
      out[o + 6] = c[1];
      out[o + 7] = c[2];
      o += NODE_FLOATS;
    }
  }
  return out;
}

/** Every link as a line (EDGE_FLOATS each), those whose larger end is largest first: a prefix
 *  of the buffer is the links that shape the picture, drawn alone while the view moves. */
export function edgeBuffer(g: GraphView): Float32Array {
  const n = Math.floor(g.edges.length / 2);
  const big = (e: number) => Math.max(g.sizes[g.edges[2 * e]] ?? 0, g.sizes[g.edges[2 * e + 1]] ?? 0);
  const order = Array.from({ length: n }, (_, e) => e).sort((a, b) => big(b) - big(a) || a - b);
  const out = new Float32Array(n * EDGE_FLOATS);
  let o = 0;
  for (const e of order) {
    const a = g.edges[2 * e], b = g.edges[2 * e + 1];
    if (a >= g.xs.length || b >= g.xs.length) continue; // a link to no node draws nothing
    out[o] = g.xs[a];
    out[o + 1] = g.ys[a];
    out[o + 2] = g.xs[b];
    out[o + 3] = g.ys[b];
    o += EDGE_FLOATS;
  }
  return o === out.length ? out : out.slice(0, o);
}

// Layout point → CSS pixel (toScreen) → clip space; shared by both programs.
const PLACE = `
uniform vec2 u_centre;
uniform float u_scale;
uniform vec2 u_view;
vec4 place(vec2 p, vec2 offset) {
  vec2 s = (p - u_centre) * u_scale + u_view * 0.5 + offset;
  return vec4(s.x / u_view.x * 2.0 - 1.0, 1.0 - s.y / u_view.y * 2.0, 0.0, 1.0);
}`;

const NODE_VS = `
attribute vec2 a_pos;
attribute vec2 a_corner;
attribute float a_radius;
attribute vec3 a_colour;
uniform float u_zoom;
varying vec2 v_off;
varying float v_r;
varying vec3 v_colour;
${PLACE}
void main() {
  v_r = a_radius * u_zoom;
  v_off = a_corner * (v_r + 1.0);
  v_colour = a_colour;
  gl_Position = place(a_pos, v_off);
}`;

const NODE_FS = `
precision mediump float;
varying vec2 v_off;
varying float v_r;
varying vec3 v_colour;
void main() {
  float a = clamp(v_r + 0.5 - length(v_off), 0.0, 1.0);
  if (a <= 0.0) discard;
  gl_FragColor = vec4(v_colour * a, a);
}`;

const EDGE_VS = `
attribute vec2 a_pos;
${PLACE}
void main() { gl_Position = place(a_pos, vec2(0.0)); }`;

const EDGE_FS = `
precision mediump float;
uniform vec4 u_colour;
void main() { gl_FragColor = vec4(u_colour.rgb * u_colour.a, u_colour.a); }`;

/** A GraphView drawn with WebGL on one canvas. */
export interface GraphGl {
  /** Builds the buffers for `g` coloured `by` (once per graph and colouring). */
  setGraph(g: GraphView, by: ColourBy): void;
  /** How many links the current graph has. */
  readonly edgeCount: number;
  /** Draws the graph through `cam` on a `w`×`h` (CSS pixels) view, at most `maxEdges` links
   *  (the first of edgeBuffer's order). Sizes the canvas to the view itself. */
  draw(cam: Camera, w: number, h: number, dpr: number, maxEdges: number): void;
  /** Frees the buffers, programs and the context itself; the listener goes with them. */
  destroy(): void;
}

type Gl = WebGLRenderingContext;

function program(gl: Gl, vs: string, fs: string): WebGLProgram | null {
  const p = gl.createProgram();
  if (!p) return null;
  for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]] as const) {
    const s = gl.createShader(type);
    if (!s) return null;
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) return null;
    gl.attachShader(p, s);
    gl.deleteShader(s); // freed with the program
  }
  gl.linkProgram(p);
  return gl.getProgramParameter(p, gl.LINK_STATUS) ? p : null;
}

/**
 * The WebGL renderer on `canvas`, or null when WebGL is missing: no context can be created
 * (the driver has none, or the system refuses it) or the shaders do not compile. The
 * screen then draws on its 2D canvas. `onLost` is called if the context is lost later.
 */
export function createGraphGl(canvas: HTMLCanvasElement, onLost: () => void): GraphGl | null {
  let gl: Gl | null = null;
  try {
    const opts: WebGLContextAttributes = { alpha: true, antialias: false, premultipliedAlpha: true, depth: false, stencil: false };
    gl = (canvas.getContext("webgl", opts) ?? canvas.getContext("experimental-webgl", opts)) as Gl | null;
  } catch {
    gl = null;
  }
  if (!gl) return null;
  const nodeProg = program(gl, NODE_VS, NODE_FS);
  const edgeProg = program(gl, EDGE_VS, EDGE_FS);
  const nodeBuf = gl.createBuffer();
  const edgeBuf = gl.createBuffer();
  const release = (ctx: Gl) => {
    for (const p of [nodeProg, edgeProg]) if (p) ctx.deleteProgram(p);
    for (const b of [nodeBuf, edgeBuf]) if (b) ctx.deleteBuffer(b);
    ctx.getExtension("WEBGL_lose_context")?.loseContext();
  };
  if (!nodeProg || !edgeProg || !nodeBuf || !edgeBuf) {
    release(gl);
    return null;
  }
  const ctx: Gl = gl;
  let alive = true;
  const lost = (e: Event) => {
    e.preventDefault();
    alive = false;
    canvas.removeEventListener("webglcontextlost", lost);
    onLost();
  };
  canvas.addEventListener("webglcontextlost", lost);
  let nodeVertices = 0;
  let edges = 0;
  const loc = (p: WebGLProgram, names: string[]) => Object.fromEntries(names.map((n) => [n, ctx.getUniformLocation(p, n)]));
  const nodeU = loc(nodeProg, ["u_centre", "u_scale", "u_view", "u_zoom"]);
  const edgeU = loc(edgeProg, ["u_centre", "u_scale", "u_view", "u_colour"]);
  /** Points the attribute `name` at the bound buffer; its location (−1: unused). */
  const attr = (p: WebGLProgram, name: string, size: number, stride: number, offset: number) => {
    const a = ctx.getAttribLocation(p, name);
    if (a < 0) return a;
    ctx.enableVertexAttribArray(a);
    ctx.vertexAttribPointer(a, size, ctx.FLOAT, false, stride * 4, offset * 4);
    return a;
  };
  const unbind = (locations: number[]) => {
    for (const a of locations) if (a >= 0) ctx.disableVertexAttribArray(a);
  };
  const camera = (u: Record<string, WebGLUniformLocation | null>, cam: Camera, w: number, h: number) => {
    ctx.uniform2f(u.u_centre, cam.x, cam.y);
    ctx.uniform1f(u.u_scale, cam.scale);
    ctx.uniform2f(u.u_view, w, h);
  };
  const grey = EDGE_GREY / 255;

  return {
    get edgeCount() {
      return edges;
    },
    setGraph(g, by) {
      if (!alive) return;
      const nodes = nodeBuffer(g, by);
      ctx.bindBuffer(ctx.ARRAY_BUFFER, nodeBuf);
      ctx.bufferData(ctx.ARRAY_BUFFER, nodes, ctx.STATIC_DRAW);
      nodeVertices = nodes.length / NODE_FLOATS;
      const lines = edgeBuffer(g);
      ctx.bindBuffer(ctx.ARRAY_BUFFER, edgeBuf);
      ctx.bufferData(ctx.ARRAY_BUFFER, lines, ctx.STATIC_DRAW);
      edges = lines.length / EDGE_FLOATS;
    },
    draw(cam, w, h, dpr, maxEdges) {
      if (!alive) return;
      const pw = Math.round(w * dpr), ph = Math.round(h * dpr);
      if (canvas.width !== pw || canvas.height !== ph) {
        canvas.width = pw;
        canvas.height = ph;
      }
      ctx.viewport(0, 0, pw, ph);
      ctx.clearColor(0, 0, 0, 0);
      ctx.clear(ctx.COLOR_BUFFER_BIT);
      if (w <= 0 || h <= 0) return;
      ctx.enable(ctx.BLEND);
      ctx.blendFunc(ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA); // colours are premultiplied
      const drawn = Math.max(0, Math.min(edges, Math.floor(maxEdges)));
      if (drawn) {
        ctx.useProgram(edgeProg);
        camera(edgeU, cam, w, h);
        ctx.uniform4f(edgeU.u_colour, grey, grey, grey, EDGE_ALPHA);
        ctx.bindBuffer(ctx.ARRAY_BUFFER, edgeBuf);
        const used = [attr(edgeProg, "a_pos", 2, 2, 0)];
        ctx.drawArrays(ctx.LINES, 0, drawn * 2);
        unbind(used);
      }
      if (nodeVertices) {
        ctx.useProgram(nodeProg);
        camera(nodeU, cam, w, h);
        ctx.uniform1f(nodeU.u_zoom, zoomFactor(cam.scale));
        ctx.bindBuffer(ctx.ARRAY_BUFFER, nodeBuf);
        const used = [
          attr(nodeProg, "a_pos", 2, NODE_FLOATS, 0),
          attr(nodeProg, "a_corner", 2, NODE_FLOATS, 2),
          attr(nodeProg, "a_radius", 1, NODE_FLOATS, 4),
          attr(nodeProg, "a_colour", 3, NODE_FLOATS, 5),
        ];
        ctx.drawArrays(ctx.TRIANGLES, 0, nodeVertices);
        unbind(used);
      }
    },
    destroy() {
      canvas.removeEventListener("webglcontextlost", lost);
      if (alive) release(ctx);
      alive = false;
    },
  };
}
