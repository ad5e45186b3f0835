// End-to-end: the Graph screen of the real app (a debug build of src-tauri) under Xvfb,
// through tauri-driver + WebKitWebDriver, over a wiki seeded through the window and
// compiled by the local test server. Run by scripts/test-desktop.sh; needs APP, TESTSERVER
// and ARTIFACTS set.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { inflateSync } from "node:zlib";
import { after, before, test } from "node:test";
import { closeApp, openApp, until } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-graph-"));
let opened;
let s;

async function shot(name) {
  await sleep(400); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${name}.png`), await s.screenshot());
}

/** Calls one of the app's commands from the page (WebDriver awaits the promise). */
const invoke = (name, args = {}) => s.exec("return window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])", [name, args]);

/** A PNG's pixels (8-bit RGB or RGBA, not interlaced: what WebDriver screenshots are). */
function pngPixels(png) {
  let at = 8, width = 0, height = 0, channels = 0;
  const data = [];
  while (at < png.length) {
    const len = png.readUInt32BE(at), type = png.toString("latin1", at + 4, at + 8), body = png.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      [width, height] = [body.readUInt32BE(0), body.readUInt32BE(4)];
      assert.ok(body[8] === 8 && (body[9] === 2 || body[9] === 6) && body[12] === 0, "an 8-bit RGB(A) PNG");
      channels = body[9] === 6 ? 4 : 3;
    } else if (type === "IDAT") data.push(body);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(data)), row = width * channels, px = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (row + 1)];
    for (let x = 0; x < row; x++) {
      const v = raw[y * (row + 1) + 1 + x];
      const a = x >= channels ? px[y * row + x - channels] : 0, b = y ? px[(y - 1) * row + x] : 0, c = x >= channels && y ? px[(y - 1) * row + x - channels] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      px[y * row + x] = (v + pred) & 255;
    }
  }
  return { width, height, at: (x, y) => [...px.subarray(y * row + x * channels, y * row + x * channels + 3)] };
}

/** How many pixels of the drawn graph (inside #graph-canvas) carry a node's colour: the grey
 *  links, the labels and the background are not coloured; every node of a community is. */
async function colouredInCanvas(png) {
  const box = await s.exec("const r = document.querySelector('#graph-canvas').getBoundingClientRect(); return [r.left, r.top, r.width, r.height].map(Math.round)");
  const img = pngPixels(png);
  let n = 0;
  for (let y = Math.max(box[1], 0); y < Math.min(box[1] + box[3], img.height); y++)
    for (let x = Math.max(box[0], 0); x < Math.min(box[0] + box[2], img.width); x++) {
      const [r, g, b] = img.at(x, y);
      if (Math.max(r, g, b) - Math.min(r, g, b) > 40) n++;
    }
  return n;
}

/** The titles in the node list, now. */
const listed = () => s.exec("return [...document.querySelectorAll('#graph-node-list .graph-node')].map((b) => b.textContent.replace(/\\s+\\d+$/, '').trim())");

before(async () => {
  opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "graph", log: join(ARTIFACTS, "tauri-driver-graph.log"), models: ["--model", "e2e-model"] });
  s = opened.s;
});

after(async () => {
  await closeApp(opened, tmp);
});

test("graph: the whole graph laid out after a compile, search centres a node, the node list opens a page, the local graph from the page", async () => {
  await s.wait("#nav-graph");
  // A chain of linked notes and one alone: Espresso → Crema → Bloom → (wanted) Roast Curve.
  for (const note of [
    "# Espresso\n\nEspresso is coffee brewed under pressure; it carries [[Crema]] on top.\n",
    "# Crema\n\nCrema is the foam on an espresso shot; fresh beans give more, see [[Bloom]].\n",
    "# Bloom\n\nBloom is the gas fresh coffee lets out when wetted, see [[Roast Curve]].\n",
    "# Grinder\n\nA burr grinder gives even grounds.\n",
  ]) {
    await s.clickOn("#nav-add");
    await s.fill("#paste-text", note);
    await s.clickOn("#add-text-btn");
  }
  await s.waitCount(".source-row", 4);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 4, 60000);
  // The app's queue lays the graph out once the run's jobs are done.
  const everything = { kind: null, tag: null, folder: null, orphans_only: false, show_wanted: true, community: null, limit: null, area: null };
  const laid = await until("the graph laid out", () => invoke("graph", { filter: everything }), (g) => g.layout.phase === "current" && g.titles.length >= 5);
  // An overview zoomed into a part (here: at most 2 nodes, around Grinder, linked with
  // nothing) shows that part's nodes first and says the part is whole.
  const at = laid.titles.indexOf("Grinder");
  const near = { min_x: laid.xs[at] - 0.01, min_y: laid.ys[at] - 0.01, max_x: laid.xs[at] + 0.01, max_y: laid.ys[at] + 0.01 };
  const plain = await invoke("graph", { filter: { ...everything, limit: 2 } });
  const part = await invoke("graph", { filter: { ...everything, limit: 2, area: near } });
  assert.ok(plain.overview && !plain.area_whole && !plain.titles.includes("Grinder"), plain.titles.join(", "));
  assert.ok(part.overview && part.area_whole && part.titles.includes("Grinder"), part.titles.join(", "));

  // Every text the list's heading shows from the screen's first frame on: it never says
  // nothing is in view while the graph's nodes are.
  await s.exec(`window.inViewSaid = [];
    new MutationObserver(() => {
      const h = document.querySelector(".graph-list h3");
      if (h && window.inViewSaid.at(-1) !== h.textContent) window.inViewSaid.push(h.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
    return true;`);
  await s.clickOn("#nav-graph");
  await s.wait("#graph-canvas");
  const all = await until("every node in the list", listed, (t) => ["Espresso", "Crema", "Bloom", "Grinder", "Roast Curve"].every((x) => t.includes(x)), 20000);
  assert.ok(all.length >= 5, all.join(", "));
  const said = await s.exec("return window.inViewSaid");
  assert.ok(said.length > 0 && said.every((h) => !/\(0\)/.test(h)), said.join(" | "));
  assert.equal(said.at(-1), `In view (${all.length})`);
  // The wanted page is in the list, marked as such.
  await s.wait('#graph-node-list .graph-node[data-kind="wanted"]');
  await shot("g1-whole-graph");

  // Search centres a node and shows its title and summary.
  await s.fill("#graph-search", "Crema");
  await s.clickOn(".graph-hit");
  await s.wait("#graph-focus", { text: (t) => t.includes("Crema") });
  await shot("g2-search-centred");

  // Hiding wanted pages is a core filter: the wanted node leaves the list.
  await s.clickOn("#graph-wanted");
  await until("no wanted node listed", listed, (t) => !t.includes("Roast Curve") && t.includes("Crema"), 20000);
  await s.clickOn("#graph-wanted");
  await until("the wanted node back", listed, (t) => t.includes("Roast Curve"), 20000);

  // The node list opens a page.
  const crema = await invoke("page_id_by_name", { name: "Crema" });
  await s.clickOn(`#graph-node-${crema}`);
  await s.wait("#article-title", { text: (t) => t === "Crema" });

  // The local graph of the page: its neighbours at depth 1, one more link at depth 2.
  await s.clickOn("#page-local-graph");
  await s.wait("#graph-depth");
  await s.wait("#graph-title", { text: (t) => t.includes("Crema") });
  const one = await until("the local graph at depth 1", listed, (t) => t.length === 3);
  assert.deepEqual([...one].sort(), ["Bloom", "Crema", "Espresso"]);
  await shot("g3-local-graph-depth-1");
  await s.exec("const r = document.querySelector('#graph-depth'); r.value = '2'; r.dispatchEvent(new Event('input', { bubbles: true })); r.dispatchEvent(new Event('change', { bubbles: true }));");
  const two = await until("the local graph at depth 2", listed, (t) => t.length === 4);
  assert.ok(two.includes("Roast Curve"), two.join(", "));
  assert.ok(!two.includes("Grinder"));
  await shot("g4-local-graph-depth-2");

  // Back to the page through the centre node; the whole graph opens where it was left
  // (centred on Crema by the search, Grinder out of view) until Fit shows it all again.
  await s.clickOn("#graph-open-centre");
  await s.wait("#article-title", { text: (t) => t === "Crema" });
  await s.clickOn("#nav-graph");
  const again = await until("the whole graph where it was", listed, (t) => t.includes("Crema"), 20000);
  assert.ok(!again.includes("Grinder"), again.join(", "));
  await s.clickOn("#graph-fit");
  await until("every node after Fit", listed, (t) => t.includes("Grinder") && t.length === 5, 20000);
  await shot("g5-whole-graph-fit");
});

test("graph: drawn by WebGL where the window has it, by the 2D canvas where it does not, the same nodes either way", async () => {
  await s.clickOn("#nav-graph");
  await until("every node in the list", listed, (t) => t.length === 5, 20000);
  // Whichever renderer this window chose, the nodes are on screen in their colours.
  const chosen = await s.exec("return document.querySelector('#graph-canvas').dataset.renderer");
  assert.ok(chosen === "webgl" || chosen === "canvas", chosen);
  console.log(`# the graph is drawn by: ${chosen}`);
  await sleep(400);
  const png = await s.screenshot();
  writeFileSync(join(ARTIFACTS, `g6-drawn-by-${chosen}.png`), png);
  assert.ok((await colouredInCanvas(png)) >= 20, `the ${chosen} renderer drew no coloured node`);

  // A window without WebGL (getContext("webgl") answers null): the next mount draws on the
  // canvas, and the graph reads, hovers and opens as before.
  await s.exec(`const plain = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) { return /webgl/.test(kind) ? null : plain.call(this, kind, ...rest); };`);
  await s.clickOn("#nav-library");
  await s.clickOn("#nav-graph");
  await s.wait('#graph-canvas[data-renderer="canvas"]');
  const titles = await until("every node in the list", listed, (t) => t.length === 5, 20000);
  assert.deepEqual([...titles].sort(), ["Bloom", "Crema", "Espresso", "Grinder", "Roast Curve"]);
  await sleep(400);
  const fallback = await s.screenshot();
  writeFileSync(join(ARTIFACTS, "g7-drawn-by-canvas-fallback.png"), fallback);
  assert.ok((await colouredInCanvas(fallback)) >= 20, "the canvas fallback drew no coloured node");
  const espresso = await invoke("page_id_by_name", { name: "Espresso" });
  await s.exec(`document.querySelector('#graph-node-${espresso}').focus()`);
  await s.wait("#graph-focus", { text: (t) => t.includes("Espresso") });
  await s.clickOn(`#graph-node-${espresso}`);
  await s.wait("#article-title", { text: (t) => t === "Espresso" });
});
