// End-to-end: the real app (a debug build of src-tauri) under Xvfb, through tauri-driver +
// WebKitWebDriver, opened on an older build's wiki (the version 1 fixture) that another
// program holds a write on as the app starts. The upgrade runs after the window opens.
// - Held on a WAL wiki, the upgrade waits for the write (SQLite's busy timeout) while the
//   window says what it does; once the other program lets go, the library opens, with the
//   copy of the old database kept.
// - Held on a wiki in a rollback journal (as the fixture is) for longer than the busy
//   timeout, switching it to WAL fails once the timeout is up: the window says why, every
//   screen is told, and the old wiki is left exactly as it was.
// - A wiki a newer build wrote cannot be opened: the window opens all the same and says
//   why, and the file is left as it was.
// Run by scripts/test-desktop.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { afterEach, test } from "node:test";
import { closeApp, holdWrite, openApp } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "../../tests/data/upgrade/v1-wiki.db");
/** What the test on screen opened, closed after it. */
let open = null;

/** The app on a copy of the fixture whose write another program holds (`wal`: in WAL mode
 * first): resolves to `{ s, holder, db }`; `holder.stdin.end()` lets go. */
async function openHeld(name, { wal }) {
  const tmp = mkdtempSync(join(tmpdir(), `wikimind-e2e-${name}-`));
  let held;
  let db;
  const prepare = async (env) => {
    mkdirSync(env.WIKIMIND_DATA_DIR, { recursive: true });
    db = join(env.WIKIMIND_DATA_DIR, "wikimind.db");
    copyFileSync(FIXTURE, db);
    // Held before the app starts: the app opens the wiki on a thread of its own from its
    // first moment, which would otherwise take the write before the other program does.
    held = await holdWrite(db, { wal });
  };
  const log = join(ARTIFACTS, `tauri-driver-${name}.log`);
  open = { tmp };
  open.opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "home", log, models: ["--model", "e2e-model"], prepare });
  open.holder = held;
  return { s: open.opened.s, holder: open.holder, db };
}

afterEach(async () => {
  open?.holder?.stdin.end();
  if (open) await closeApp(open.opened, open.tmp);
  open = null;
});

test("upgrade, held: the window says what the upgrade does while it waits, then opens the library", async () => {
  const { s, holder, db } = await openHeld("upgrade-held", { wal: true });
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

test("upgrade, busy: the window opens and says why the upgrade could not run, and the old wiki is kept as it was", async () => {
  const { s, db } = await openHeld("upgrade-busy", { wal: false });
  // The upgrade runs after the window opens (a large wiki's takes seconds). The database
  // cannot be taken from the other program (the switch to WAL is asked for again until
  // the five-second busy timeout is up), so the window says why, as the CLI would print
  // it, rather than the app not starting.
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

test("a newer build's wiki: the window opens and says why it cannot be read, and the file is kept as it was", async () => {
  // The wiki opens on a thread of its own beside the window, so a wiki that cannot be
  // opened is said in the window, not only on the standard error of an app that never
  // showed.
  const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-newer-"));
  let db;
  let before;
  const prepare = (env) => {
    mkdirSync(env.WIKIMIND_DATA_DIR, { recursive: true });
    db = join(env.WIKIMIND_DATA_DIR, "wikimind.db");
    copyFileSync(FIXTURE, db);
    const future =
      "import sqlite3, sys\n" +
      "c = sqlite3.connect(sys.argv[1])\n" +
      "c.execute(\"INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_future.sql', 'f', '2027-01-01T00:00:00Z')\")\n" +
      "c.commit()\n";
    execFileSync("python3", ["-c", future, db]);
    before = readFileSync(db);
  };
  open = { tmp };
  const log = join(ARTIFACTS, "tauri-driver-newer.log");
  open.opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "home", log, models: ["--model", "e2e-model"], prepare });
  const s = open.opened.s;
  const said = await s.waitAny(
    "#opening-notices .opening-notice",
    (t) => t.includes("schema migration 9999") && t.includes("written by a newer WikiMind"),
    30000,
  );
  assert.match(await s.text(said), /^cannot open the wiki in .*home\/data: .*nothing can be read or compiled until the app is opened again$/);
  await s.wait("#library-unread");
  assert.equal(await s.exec("return document.querySelector('#database-upgrade, #upgrading, .lib-row')"), null);
  writeFileSync(join(ARTIFACTS, "u5-newer-wiki.png"), await s.screenshot());
  assert.deepEqual(readFileSync(db), before, "the newer build's wiki is left as it was");
});
