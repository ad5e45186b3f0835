// End-to-end: the real app (a debug build of src-tauri) under Xvfb, through tauri-driver +
// WebKitWebDriver, opened on a wiki an older build wrote (the version 1 fixture every build
// must open): the window says what opening did, as the CLI prints it on stderr. Run by
// scripts/test-desktop.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { closeApp, openApp } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "../../tests/data/upgrade/v1-wiki.db");
const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-upgrade-"));
let opened;
let s;

before(async () => {
  // The home's data dir holds the version 1 wiki before the app first opens it.
  const prepare = (env) => {
    mkdirSync(env.WIKIMIND_DATA_DIR, { recursive: true });
    copyFileSync(FIXTURE, join(env.WIKIMIND_DATA_DIR, "wikimind.db"));
  };
  const log = join(ARTIFACTS, "tauri-driver-upgrade.log");
  opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "home", log, models: ["--model", "e2e-model"], prepare });
  s = opened.s;
});

after(async () => {
  await closeApp(opened, tmp);
});

test("upgrade: an older build's wiki opens on its library with a banner saying what the upgrade did", async () => {
  const banner = await s.wait("#opening-notices .opening-notice", {
    text: (t) => t.startsWith("upgraded the wiki's database from schema 1"),
  });
  assert.ok(banner);
  // The backfills run beside the open window (a large wiki would wait for them): what they
  // changed joins the banner once they are done, and the line saying they run goes.
  await s.waitAny("#opening-notices .opening-notice", (t) => t.startsWith("note-identity:"), 30000);
  await s.wait("#opening-notices", { text: (t) => !t.includes("Bringing the wiki's data up to this version") });
  const notices = await s.exec(
    "return [...document.querySelectorAll('#opening-notices .opening-notice')].map((n) => n.textContent)",
  );
  assert.match(notices[0], /the old one is kept at .*wikimind\.db\.bak-v0*1$/);
  // The fixture has two notes named pour-over (one in methods/): the backfill that tells
  // them apart says so in the banner too.
  assert.ok(
    notices.some((n) => n.startsWith("note-identity: 1 note that shared a name")),
    JSON.stringify(notices),
  );
  // The upgraded wiki's pages are there: it opened on its library, not the first-run screen.
  await s.wait("#counts", { text: (t) => /^[1-9]\d* pages?\b/.test(t) });
  await sleep(300);
  writeFileSync(join(ARTIFACTS, "u1-upgrade-notice.png"), await s.screenshot());

  await s.clickOn("#notices-dismiss");
  await s.wait("#opening-notices", { text: (t) => t.trim() === "" });
  const hidden = await s.exec("return document.querySelector('#opening-notices').hidden");
  assert.equal(hidden, true);
});
