// A measurement, not a test (no pass mark; scripts/e2e.sh runs it like a test file):
// the Graph screen of the real window over a bulk-seeded wiki (GRAPH_DB: a wikimind.db of
// `cargo bench -p wikimind --bench graph`'s seed cache). Prints, for the renderer the window
// chooses (WebGL where it can create a context) and then for the 2D canvas fallback (WebGL
// refused as a window without it refuses it), the time from opening the screen to its first
// frame and frames per second while panning and zooming; over a wiki never laid out, first
// how soon a draft of the first layout is drawn.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer, until, wikiEnv } from "./harness.mjs";
import { Session, startDriver, stopDriver } from "./webdriver.mjs";

const { APP, TESTSERVER, GRAPH_DB } = process.env;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER && GRAPH_DB, "set APP, TESTSERVER and GRAPH_DB");
const tmp = mkdtempSync(join(tmpdir(), "wikimind-graph-fps-"));
let server, driver, s;

before(async () => {
  const started = await startServer(TESTSERVER, ["--model", "e2e-model"]);
  server = started.child;
  const env = wikiEnv(tmp, started.url, "fps");
  mkdirSync(env.WIKIMIND_DATA_DIR, { recursive: true });
  copyFileSync(GRAPH_DB, join(env.WIKIMIND_DATA_DIR, "wikimind.db"));
  driver = await startDriver(env, join(ARTIFACTS, "tauri-driver-graph-fps.log"));
  s = await Session.start(driver.base, APP);
});

after(async () => {
  await s?.quit();
  await stopDriver(driver);
  server?.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
});

const invoke = (name, args = {}) => s.exec("return window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])", [name, args]);
const all = { kind: null, tag: null, folder: null, orphans_only: false, show_wanted: true, community: null, limit: null };

test("graph at scale: first frame and frames per second", async () => {
  await s.wait("#nav-graph");
  const t0 = Date.now();
  // A wiki never laid out: the screen draws drafts of the first layout while it runs.
  const before = await invoke("graph", { filter: all });
  if (before.layout.phase === "first_layout") {
    await s.clickOn("#nav-graph");
    await s.wait("#graph-layout-note", { text: (t) => t.includes("draft"), timeout: 600000 });
    await s.wait("#graph-counts", { text: (t) => t.includes("nodes") });
    console.log(`first layout: a draft drawn ${((Date.now() - t0) / 1000).toFixed(1)} s after the app started; ${await s.text(await s.find("#graph-counts"))}`);
    writeFileSync(join(ARTIFACTS, "fps-0-first-layout-draft.png"), await s.screenshot());
    await s.clickOn("#nav-library");
  }
  await until("the first layout", () => invoke("graph", { filter: all }), (g) => g.layout.phase === "current", 600000);
  console.log(`first layout in the app: ${((Date.now() - t0) / 1000).toFixed(1)} s (including the app's start)`);
  const fps = (kind) =>
    s.exec(`return new Promise((done) => {
      const c = document.querySelector('#graph-canvas');
      const r = c.getBoundingClientRect();
      let frames = 0; const start = performance.now(); let step = 0;
      if (${JSON.stringify(kind)} === 'pan') c.dispatchEvent(new PointerEvent('pointerdown', { clientX: r.left + 300, clientY: r.top + 300, pointerId: 1, bubbles: true }));
      const tick = () => {
        step++;
        if (${JSON.stringify(kind)} === 'pan') c.dispatchEvent(new PointerEvent('pointermove', { clientX: r.left + 300 + (step % 200), clientY: r.top + 300, pointerId: 1, bubbles: true }));
        else c.dispatchEvent(new WheelEvent('wheel', { deltaY: step % 40 < 20 ? -30 : 30, clientX: r.left + 300, clientY: r.top + 250, bubbles: true, cancelable: true }));
        frames++;
        if (performance.now() - start < 3000) requestAnimationFrame(tick);
        else {
          if (${JSON.stringify(kind)} === 'pan') c.dispatchEvent(new PointerEvent('pointerup', { clientX: r.left + 300, clientY: r.top + 300, pointerId: 1, bubbles: true }));
          done((frames * 1000) / (performance.now() - start));
        }
      };
      requestAnimationFrame(tick);
    })`);
  const measure = async (name) => {
    const opened = Date.now();
    await s.clickOn("#nav-graph");
    await s.wait("#graph-counts", { text: (t) => t.includes("nodes"), timeout: 120000 });
    await s.exec("return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))");
    const renderer = await s.exec("return document.querySelector('#graph-canvas').dataset.renderer");
    console.log(`[${renderer}] open to first frame: ${Date.now() - opened} ms; ${await s.text(await s.find("#graph-counts"))}`);
    writeFileSync(join(ARTIFACTS, `fps-${name}-1-opened.png`), await s.screenshot());
    // Both renderers from the same place: the whole graph.
    await s.clickOn("#graph-fit");
    console.log(`[${renderer}] panning: ${(await fps("pan")).toFixed(1)} frames/s`);
    console.log(`[${renderer}] zooming: ${(await fps("zoom")).toFixed(1)} frames/s`);
    writeFileSync(join(ARTIFACTS, `fps-${name}-2-after.png`), await s.screenshot());
  };
  await measure("chosen");
  // Zoomed into the overview, the part in view is read again: its largest nodes while the
  // part holds more than the limit, every one of them once it holds fewer.
  const counts = await s.text(await s.find("#graph-counts"));
  if (counts.includes("most linked")) {
    await s.clickOn("#graph-fit");
    let steps = 0;
    let text = counts;
    while (steps < 24 && !text.includes("every one in this part")) {
      await s.clickOn("#graph-zoom-in");
      steps++;
      const t = Date.now();
      // A step that leaves the part held needs no read: settled once the text stops changing.
      let last = "";
      while (Date.now() - t < 30000) {
        await new Promise((r) => setTimeout(r, 400));
        text = await s.text(await s.find("#graph-counts"));
        if (text === last) break;
        last = text;
      }
    }
    await s.exec("return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))");
    console.log(`zoomed in ${steps} steps of 1.4×: ${text}; ${await s.text(await s.find(".graph-list h3"))}`);
    writeFileSync(join(ARTIFACTS, "fps-chosen-3-zoomed-part.png"), await s.screenshot());
  } else console.log(`not an overview (${counts}): nothing to read by part`);
  // The fallback: WebGL refused, the screen mounted again.
  await s.exec(`const plain = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) { return /webgl/.test(kind) ? null : plain.call(this, kind, ...rest); };`);
  await s.clickOn("#nav-library");
  await measure("canvas");
});
