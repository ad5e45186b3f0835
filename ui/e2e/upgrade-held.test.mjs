// End-to-end: the real app (a debug build of src-tauri) under Xvfb, through tauri-driver +
// WebKitWebDriver, opened on an older build's wiki (the version 1 fixture, in WAL mode) that
// another program holds a write on as the app starts. The upgrade runs after the window
// opens and waits for the write (SQLite's busy timeout): meanwhile the window says what the
// upgrade does. Once the other program lets go, the upgrade ends and the library opens,
// with the copy of the old database kept. Run by scripts/test-desktop.sh; needs APP,
// TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
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
const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-upgrade-held-"));
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
    held = holdWrite(db, { wal: true });
  };
  const log = join(ARTIFACTS, "tauri-driver-upgrade-held.log");
  // The lock is taken before the app starts (the driver starts it with the session).
  opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "home", log, models: ["--model", "e2e-model"], prepare });
  holder = await held;
  s = opened.s;
});

after(async () => {
  holder?.stdin.end();
  await closeApp(opened, tmp);
});

test("upgrade, held: the window says what the upgrade does while it waits, then opens the library", async () => {
  // Each of the upgrade's steps waits up to five seconds for the write (the checkpoint
  // before the copy, the copy's lock, then the first migration): the line stays that long.
  const line = await s.wait("#database-upgrade", { timeout: 10000 });
  assert.ok(line);
  const upgrading = await s.exec("return document.querySelector('#database-upgrade').textContent");
  assert.match(
    upgrading,
    /^\s*upgrading the wiki's database from schema 1 to \d+, after keeping the old one at .*wikimind\.db\.bak-v01… The library opens once it is done\.\s*$/,
  );
  assert.equal(await s.exec("return document.querySelector('.lib-row')"), null, "nothing is read meanwhile");
  writeFileSync(join(ARTIFACTS, "u3-database-upgrade.png"), await s.screenshot());

  // The other program lets go: the upgrade ends, says what it did, and the library opens.
  holder.stdin.end();
  await s.waitAny(
    "#opening-notices .opening-notice",
    (t) => /^upgraded the wiki's database from schema 1 to \d+; the old one is kept at .*wikimind\.db\.bak-v01$/.test(t),
    30000,
  );
  await s.wait("#counts", { text: (t) => /^[1-9]\d* pages?\b/.test(t), timeout: 30000 });
  assert.equal(await s.exec("return document.querySelector('#database-upgrade')"), null);
  assert.ok(existsSync(`${db}.bak-v01`), "the old database is kept");
  writeFileSync(join(ARTIFACTS, "u4-upgraded-after-the-wait.png"), await s.screenshot());
});
