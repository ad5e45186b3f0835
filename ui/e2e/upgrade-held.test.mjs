// End-to-end: the real app (a debug build of src-tauri) under Xvfb, through tauri-driver +
// WebKitWebDriver, opened on an older build's wiki (the version 1 fixture) that another
// program holds a write on as the app starts. The upgrade runs after the window opens.
// - Held on a WAL wiki, the upgrade waits for the write (SQLite's busy timeout) while the
//   window says what it does; once the other program lets go, the library opens, with the
//   copy of the old database kept.
// - Held on a wiki in a rollback journal (as the fixture is), switching it to WAL fails at
//   once: the window says why, every screen is told, and the old wiki is left exactly as
//   it was.
// Run by scripts/test-desktop.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
