// End-to-end: a pool of model servers set in Settings, and each member's state on the
// Queue screen, in the real app (a debug build of src-tauri) under Xvfb through
// tauri-driver + WebKitWebDriver, with two local test servers, one of which is stopped
// before the compile. Run by scripts/test-desktop.sh; needs APP, TESTSERVER and ARTIFACTS.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { startServer, until, wikiEnv } from "./harness.mjs";
import { Session, startDriver, stopDriver } from "./webdriver.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-pool-"));
let steady;
let failing;
let driver;
let s;

async function shot(name) {
  await sleep(300); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${name}.png`), await s.screenshot());
}

/** Calls one of the app's commands from the page (WebDriver awaits the promise). */
const invoke = (name, args = {}) => s.exec("return window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])", [name, args]);

const NOTES = ["Espresso", "Basalt", "Kestrel", "Origami"];

before(async () => {
  steady = await startServer(TESTSERVER);
  failing = await startServer(TESTSERVER);
  driver = await startDriver(wikiEnv(tmp, steady.url, "pool"), join(ARTIFACTS, "tauri-driver-pool.log"));
  s = await Session.start(driver.base, APP);
});

after(async () => {
  await s?.quit();
  await stopDriver(driver);
  steady?.child.kill("SIGTERM");
  failing?.child.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
});

test("pool: Settings sets two servers, the Queue shows each one's state, a stopped one is set aside and its job compiles on the other", async () => {
  await s.wait("#nav-settings");
  await s.clickOn("#nav-settings");
  await s.wait("#pool-members", { text: (t) => t.includes("No pool") });
  // Each added row starts from the server above (the steady one); the first is pointed at
  // the other server, which comes first in line for the first job.
  await s.clickOn("#pool-add");
  await s.clickOn("#pool-add");
  await s.waitCount("#pool-members .pool-member", 2);
  await s.fill("#pool-members .pool-member:nth-child(1) .pool-base-url", failing.url);
  await s.clickOn("#apply-pool");
  await s.wait("#status", { text: (t) => t.includes("Compiling over 2 servers") });
  // Kept: the config file (in the app's XDG config folder) now holds the pool.
  const file = join(tmp, "pool", "config", "wikimind", "config.toml");
  assert.ok((await s.text(await s.wait("#status"))).includes(`kept in ${file}`));
  const kept = readFileSync(file, "utf8");
  assert.equal(kept.match(/\[\[pool\]\]/g)?.length, 2, kept);
  assert.ok(kept.indexOf(failing.url) < kept.indexOf(steady.url), kept);
  const settings = await invoke("settings");
  assert.deepEqual(
    settings.pool.map((m) => [m.base_url, m.model, m.concurrency]),
    [
      [failing.url, "e2e-model", 1],
      [steady.url, "e2e-model", 1],
    ],
  );
  // The server form above shows the pool's first member.
  assert.equal(await s.exec("return document.querySelector('#base-url').value"), failing.url);
  await shot("p1-settings-pool");

  // The Queue screen lists both members, ready.
  await s.clickOn("#nav-queue");
  await s.waitCount('#pool-state .pool-member-state[data-state="ready"]', 2);

  // One server stops; the compile goes on with the other.
  failing.child.kill("SIGTERM");
  await new Promise((resolve) => failing.child.once("exit", resolve));
  for (const topic of NOTES) {
    await s.clickOn("#nav-add");
    await s.fill("#paste-text", `# ${topic}\n\n${topic} is the subject of this note, and only ${topic}.\n`);
    await s.clickOn("#add-text-btn");
  }
  await s.waitCount(".source-row", NOTES.length);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', NOTES.length, 60000);

  const pool = await until(
    "every source counted for the server that compiled it",
    () => invoke("pool"),
    (p) => p.length === 2 && p[1].compiled === NOTES.length,
  );
  assert.equal(pool[0].compiled, 0);
  assert.ok(pool[0].set_aside >= 1, JSON.stringify(pool));
  assert.ok(pool[0].failed >= 1, JSON.stringify(pool));

  await s.clickOn("#nav-queue");
  await s.wait("#pool-state .pool-member-state:nth-of-type(2) .pool-compiled", { text: (t) => t === String(NOTES.length) });
  await s.wait("#pool-state .pool-member-state:nth-of-type(1)", { text: (t) => /0 compiled/.test(t) && !/set aside 0 times/.test(t) });
  await shot("p2-queue-pool-state");
});
