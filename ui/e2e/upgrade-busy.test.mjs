// End-to-end: the real app (a debug build of src-tauri) under Xvfb, through tauri-driver +
// WebKitWebDriver, opened on an older build's wiki (the version 1 fixture) that another
// program holds a write on for the whole test. The window opens before the upgrade (which
// then says what it does, see upgrade.test.mjs); this upgrade cannot take the database, so
// the window says why, every screen is told, and the old database is left exactly as it
// was. Run by scripts/test-desktop.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { closeApp, holdWrite, openApp } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "../../tests/data/upgrade/v1-wiki.db");
const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-upgrade-busy-"));
let opened;
let holder;
let db;
let s;

before(async () => {
  let held;
  const prepare = (env) => {
    mkdirSync(env.WIKIMIND_DATA_DIR, { recursive: true });
    db = join(env.WIKIMIND_DATA_DIR, "wikimind.db");
    copyFileSync(FIXTURE, db);
    held = holdWrite(db);
  };
  const log = join(ARTIFACTS, "tauri-driver-upgrade-busy.log");
  opened = await openApp({
    app: APP,
    testserver: TESTSERVER,
    tmp,
    name: "home",
    log,
    models: ["--model", "e2e-model"],
    prepare: (env) => prepare(env),
  });
  holder = await held;
  s = opened.s;
});

after(async () => {
  holder?.stdin.end();
  await closeApp(opened, tmp);
});

test("upgrade, busy: the window opens and says why the upgrade could not run, and the old wiki is kept as it was", async () => {
  // The upgrade runs after the window opens (a large wiki's takes seconds). The database
  // cannot be taken from the other program, so the window says why, as the CLI would
  // print it, rather than the app not starting.
  const failed = await s.waitAny(
    "#opening-notices .opening-notice",
    (t) => t.includes("database is locked") && t.endsWith("nothing can be read or compiled until the app is opened again"),
    30000,
  );
  assert.ok(failed);
  const notices = await s.exec(
    "return [...document.querySelectorAll('#opening-notices .opening-notice')].map((n) => n.textContent)",
  );
  assert.match(notices[0], /^cannot open the wiki in .*home\/data: /, JSON.stringify(notices));
  // No line says it is still upgrading, and the library is told the same instead of
  // waiting for ever.
  assert.equal(await s.exec("return document.querySelector('#database-upgrade, #upgrading')"), null);
  await s.wait("#status.error", { text: (t) => t.includes("database is locked"), timeout: 10000 });
  await s.wait("#library-unread");
  writeFileSync(join(ARTIFACTS, "u2-upgrade-failed.png"), await s.screenshot());

  // Nothing of the old wiki changed, and no copy was taken for it.
  assert.deepEqual(readFileSync(db), readFileSync(FIXTURE));
  assert.equal(existsSync(`${db}.bak-v01`), false);
});
