// End-to-end: the Health view of the real app (a debug build of src-tauri) under Xvfb,
// through tauri-driver + WebKitWebDriver, over a wiki seeded through the window and
// compiled by the local test server. Run by scripts/test-desktop.sh; needs APP, TESTSERVER
// and ARTIFACTS set.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { Session, startDriver, stopDriver } from "./webdriver.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-health-"));
let server;
let driver;
let s;

async function shot(name) {
  await sleep(300); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${name}.png`), await s.screenshot());
}

/** The number of elements matching `css`, now. */
const count = async (css) => (await s.findAll(css)).length;

/** Waits until exactly `n` elements match `css` (the suite's waitCount means "at least"). */
async function waitExactly(css, n, timeout = 30000) {
  const until = Date.now() + timeout;
  let seen = -1;
  while (Date.now() < until) {
    seen = await count(css);
    if (seen === n) return;
    await sleep(150);
  }
  throw new Error(`timed out waiting for exactly ${n} × ${css} (saw ${seen})`);
}

/** Calls one of the app's commands from the page (WebDriver awaits the promise). */
const invoke = (name, args = {}) => s.exec("return window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])", [name, args]);

/** Waits until `pred` holds for what `read` resolves to. */
async function until(what, read, pred, timeout = 60000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await read();
    if (pred(last)) return last;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 400)})`);
}

before(async () => {
  const child = spawn(TESTSERVER, ["--port", "0", "--model", "e2e-model"], { stdio: ["ignore", "pipe", "inherit"] });
  server = child;
  const url = await new Promise((resolve, reject) => {
    child.once("error", reject);
    createInterface({ input: child.stdout }).once("line", (l) => resolve(l.trim()));
  });
  mkdirSync(join(tmp, "config"), { recursive: true });
  driver = await startDriver(
    {
      WIKIMIND_DATA_DIR: join(tmp, "data"),
      WIKIMIND_BASE_URL: url,
      WIKIMIND_PROVIDER: "ollama",
      WIKIMIND_MODEL: "e2e-model",
      XDG_CONFIG_HOME: join(tmp, "config"),
      XDG_DATA_HOME: join(tmp, "xdg-data"),
    },
    join(ARTIFACTS, "tauri-driver-health.log"),
  );
  s = await Session.start(driver.base, APP);
});

after(async () => {
  await s?.quit();
  await stopDriver(driver);
  server?.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
});

test("health: findings of a seeded wiki by check, a trend of two runs, a merge proposal accepted merges the pages", async () => {
  await s.wait("#nav-health");
  // Two notes on one topic in other word orders (a merge proposal) and a wanted page.
  for (const note of [
    "# Coffee Roasting\n\nCoffee roasting turns green beans brown.\nIt takes about twelve minutes.\nThe beans crack twice while they roast, as [[Green Beans]] lose water.\n",
    "# Roasting Coffee\n\nRoasting coffee at home needs a hot pan.\nStir the beans all the time.\nLight roasts keep more acidity.\n",
  ]) {
    await s.clickOn("#nav-add");
    await s.fill("#paste-text", note);
    await s.clickOn("#add-text-btn");
  }
  await waitExactly(".source-row", 2);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 2, 60000);
  // The app's runner stores the health figures when its compile run ends.
  const stored = await until("the compile run's health figures", () => invoke("library", { sort: "title" }), (l) => l.health !== null);
  assert.equal(stored.health.trigger, "compile");
  assert.equal(stored.health.pages, 2);
  assert.equal(stored.health.duplicates, 1);

  // The library header shows the current figures, a link to the Health view.
  await s.clickOn("#nav-queue");
  await s.clickOn("#nav-library");
  await s.wait("#counts", { text: (t) => t.includes("2 pages") });
  await s.wait('#health-figures [data-figure="duplicates"]', { text: (t) => t === "1 duplicate" });
  await s.wait('#health-figures [data-figure="wanted"]', { text: (t) => t === "1 wanted" });
  await shot("h1-library-health-figures");

  // Opening the Health view is a lint run: the chart shows the compile run and this one.
  await s.clickOn("#health-figures");
  await s.wait("#health-now");
  const dots = '#trend .spark[data-series="link_resolution"] .run-dot';
  await waitExactly(dots, 2);
  /** What the chart's runs were stored after, oldest first. */
  const triggers = () => s.exec(`return [...document.querySelectorAll('${dots}')].map((c) => c.dataset.trigger)`);
  /** Waits until the chart shows exactly `n` lint runs (the app's runner adds a compile run
   * whenever its queue goes idle after a job, so those are not counted exactly). */
  const lintRuns = (n) => until(`${n} lint runs in the chart`, triggers, (t) => t.filter((x) => x === "lint").length === n, 20000);
  assert.deepEqual(await triggers(), ["compile", "lint"]);
  await waitExactly("#trend .spark polyline", 4);
  await waitExactly("#trend .run-dot", 8);
  await waitExactly('.check-group[data-check="duplicate"] .finding', 1);
  await waitExactly('.check-group[data-check="wanted"] .finding', 1);
  const proposal = await s.wait('.check-group[data-check="duplicate"] .finding');
  const proposalText = await s.text(proposal);
  assert.match(proposalText, /Coffee Roasting/);
  assert.match(proposalText, /Roasting Coffee/);
  assert.match(proposalText, /the same words in another order/);
  // The pages involved are links to them.
  await waitExactly('.check-group[data-check="duplicate"] .finding a.finding-page', 2);
  const wanted = await s.text(await s.find('.check-group[data-check="wanted"] .finding'));
  assert.match(wanted, /Green Beans/);
  await shot("h2-health-view");

  // Asking for the wanted page makes it a topic written from the source mentioning it.
  await s.clickOn('.check-group[data-check="wanted"] .ask-page');
  // (The status line may already say the page was written: both name it.)
  await s.wait("#status", { text: (t) => t.includes("Green Beans") });
  await waitExactly('.check-group[data-check="wanted"]', 0);
  const asked = await until("the asked-for page written", async () => {
    const id = await invoke("page_id_by_name", { name: "Green Beans" });
    return id === null ? null : invoke("page", { id });
  }, (p) => p !== null && p.stale_reason === null && p.sources.length === 1);
  assert.equal(asked.title, "Green Beans");
  await lintRuns(2); // asking reran the lint, a stored run

  // Accepting the proposal runs the one merge: one page is left, its merged page queued.
  await s.clickOn('.check-group[data-check="duplicate"] .accept-merge');
  await waitExactly('.check-group[data-check="duplicate"]', 0);
  await lintRuns(2); // an action is not a stored run
  const lib = await until("one page after the merge", () => invoke("library", { sort: "title" }), (l) => l.counts.pages === 2);
  const survivor = lib.entries.find((e) => e.title !== "Green Beans");
  const merged = await until("the merged page written from both sources", () => invoke("page", { id: survivor.id }), (p) => p.sources.length === 2 && p.stale_reason === null);
  assert.ok(["Coffee Roasting", "Roasting Coffee"].includes(merged.title), merged.title);
  assert.equal(await invoke("page_id_by_name", { name: "Roasting Coffee" }), survivor.id);
  assert.equal(await invoke("page_id_by_name", { name: "Coffee Roasting" }), survivor.id);
  await shot("h3-health-after-merge");
  await s.clickOn("#nav-health");
  await s.wait("#health-now");
  const runs = await lintRuns(3);
  assert.equal(runs[0], "compile");
  assert.ok(runs.filter((x) => x === "compile").length >= 2, "the merged page's job was a compile run too");
  await shot("h4-health-again");

  await s.clickOn("#nav-library");
  await s.wait("#counts", { text: (t) => t.includes("2 pages") });
  await shot("h5-library-after");
});
