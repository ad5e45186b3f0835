// End-to-end: writing in the wiki through the real window — a note written with a `[[`
// completion and compiled into pages; a page edited, its edit kept through the model's
// rewrites, a conflicting section offered as a suggestion and accepted, a claim removed and
// one added, its history compared and the page reverted to compiled. Run by
// scripts/e2e.sh against the debug build, and against the release build CI packages.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { closeApp, openApp } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
/** Screenshot names get this prefix (`release-` for the release binary's run). */
const PREFIX = process.env.SHOT_PREFIX ?? "";
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-writing-"));
let opened;
let s;

async function shot(name) {
  await new Promise((r) => setTimeout(r, 300)); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${PREFIX}${name}.png`), await s.screenshot());
}

before(async () => {
  opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "writing", log: join(ARTIFACTS, `${PREFIX}tauri-driver-writing.log`) });
  s = opened.s;
});

after(async () => {
  await closeApp(opened, tmp);
});

/** Pastes `text` as a source and compiles everything waiting, until `title`'s row is compiled. */
async function addAndCompile(text, title) {
  await s.clickOn("#nav-add");
  await s.fill("#paste-text", text);
  await s.clickOn("#add-text-btn");
  await s.clickOn("#compile-all");
  await s.waitAny('.source-row[data-status="compiled"]', (t) => t.includes(title), 60000);
}

/** Waits until every job in the queue has ended. */
async function queueIdle() {
  await s.clickOn("#nav-queue");
  await until(
    () => s.exec("const jobs = [...document.querySelectorAll('.job')]; return jobs.length > 0 && jobs.every((j) => ['compiled', 'failed', 'cancelled'].includes(j.dataset.stage));"),
    (idle) => idle === true,
    "the queue to finish",
    60000,
  ).catch(async (e) => {
    await shot("failed-queue");
    throw e;
  });
}

/** The value of a field. */
const valueOf = (css) => s.exec("return document.querySelector(arguments[0]).value", [css]);

/** Opens the page titled `title` from the library. */
async function openPage(title) {
  await s.clickOn("#nav-library");
  await s.click(await s.waitAny(".lib-row", (t) => t.startsWith(title)));
  await s.wait("#article-title", { text: (t) => t === title });
}

/** Opens page `title` again and again until its body's text satisfies `pred` (a page job
 * may still be on its way when the source's own job ended). */
async function pageShows(title, pred, what) {
  await until(
    async () => {
      await openPage(title);
      return s.exec("return document.querySelector('#article-body').textContent");
    },
    pred,
    what,
    60000,
  );
}

/** Waits until `read()` gives something `pred` holds for; returns it. */
async function until(read, pred, what, timeout = 30000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await read();
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

test("a note: written with a [[ completion, saved as typed, compiled into a page", async () => {
  await s.wait("#nav-notes");
  await addAndCompile("# Espresso\n\nEspresso is brewed under nine bars of pressure.\n", "Espresso");

  await s.clickOn("#nav-notes");
  await s.clickOn("#note-new");
  await s.wait("#note-title");
  // The title saves when the field is left.
  await s.exec(
    "const el = document.querySelector('#note-title'); el.value = 'Grind Size'; el.dispatchEvent(new Event('input', { bubbles: true })); el.blur();",
  );
  await s.waitAny("#notes-list li", (t) => t.includes("Grind Size"));

  // Typed text (CJK too) with a link being written: the completion offers the page.
  await s.fill("#note-editor", "# Grind Size\n\nGrind size sets how fast water runs through coffee. 挽き目は細かく。\nIt decides [[Esp");
  const option = await s.waitAny("#note-editor-names li", (t) => t.includes("Espresso"));
  assert.ok(option);
  await shot("40-note-completion");
  const editor = await s.find("#note-editor");
  await s.cmd("POST", `/element/${editor}/value`, { text: "\uE007" }); // Enter takes the name
  const text = await until(() => valueOf("#note-editor"), (v) => v.includes("[[Espresso]]"), "the completed link");
  assert.ok(text.endsWith("It decides [[Espresso]]"), text);
  assert.equal((await s.findAll("#note-editor-names li")).length, 0, "the list closes");

  // Saved when typing pauses, then compiled (compile on save is on by default).
  await s.wait("#note-saved", { text: (t) => t.startsWith("Saved") });
  await s.waitAny("#notes-list li", (t) => t.includes("Grind Size") && t.includes("compiled"), 60000);
  await s.clickOn("#note-editor-preview-tab");
  await s.wait("#note-editor-preview a.wikilink[data-article-id]", { text: (t) => t === "Espresso" });
  await s.wait("#note-editor-preview", { text: (t) => t.includes("挽き目は細かく。") });
  await shot("41-note-preview");

  // The note is a source: its page is in the library, its link resolved.
  await openPage("Grind Size");
  await s.wait("#article-body", { text: (t) => t.includes("Grind size sets how fast water runs") });
  await shot("42-note-page");
});

test("a page: an edit survives a rewrite, a conflict is a suggestion to accept; claims; history; revert", async () => {
  await openPage("Espresso");
  const first = await s.exec("return document.querySelector('#article-body').textContent");
  assert.ok(first.includes("nine bars"), first);

  // The person adds a section of their own.
  await s.clickOn("#page-edit");
  const body = await valueOf("#page-editor");
  await s.fill("#page-editor", `${body.trimEnd()}\n\n## My machine\n\nMy lever machine pulls at eight bars.\n`);
  await shot("43-page-editing");
  await s.clickOn("#page-save");
  await s.wait("#article-body h2", { text: (t) => t === "My machine" });

  // A new source feeds the page: its sentence comes in, the person's section stays.
  await addAndCompile("# Espresso\n\nA shot of espresso takes about thirty seconds.\n", "Espresso");
  await queueIdle();
  await pageShows("Espresso", (t) => t.includes("thirty seconds") && t.includes("My machine"), "the new source's sentence beside the person's section");

  // The person rewords the last line the model wrote; the model then adds a paragraph
  // right after it: both changed one place, so the person's text stays.
  await s.clickOn("#page-edit");
  const merged = await valueOf("#page-editor");
  const [top, mine] = merged.split("## My machine");
  const lines = top.trimEnd().split("\n");
  lines[lines.length - 1] += " (25 to 30 seconds on my machine)";
  await s.fill("#page-editor", `${lines.join("\n")}\n\n## My machine${mine}`);
  await s.clickOn("#page-save");
  await s.wait("#article-body", { text: (t) => t.includes("25 to 30 seconds") });
  await addAndCompile("# Espresso\n\nCrema is the foam on top of a shot.\n", "Espresso");
  await queueIdle();
  await until(
    async () => {
      await openPage("Espresso");
      return s.exec("return document.querySelector('#suggestions')?.textContent ?? ''");
    },
    (t) => t.includes("Crema is the foam"),
    "a suggestion holding the model's new sentence",
    60000,
  );
  assert.ok((await s.exec("return document.querySelector('#article-body').textContent")).includes("25 to 30 seconds"), "the person's text stays");
  await shot("44-page-suggestion");
  await s.clickOn("#suggestions .suggestion-accept");
  await s.wait("#article-body", { text: (t) => t.includes("Crema is the foam") && t.includes("My machine") });
  assert.equal((await s.findAll("#suggestions .suggestion")).length, 0);

  // Claims: one removed, one of the person's own added.
  const claims = (await s.findAll("#claims .claim")).length;
  assert.ok(claims >= 2, `claims: ${claims}`);
  await s.clickOn("#claims .claim-remove");
  await until(async () => (await s.findAll("#claims .claim")).length, (n) => n === claims - 1, "one claim fewer");
  await s.type("#claim-add-text", "My grinder is a hand grinder.");
  await s.clickOn("#claim-add button[type=submit]");
  await s.waitAny("#claims .claim", (t) => t.includes("My grinder is a hand grinder.") && t.includes("yours"));
  await shot("45-page-claims");

  // History: every version, compared with the current one.
  await s.waitAny("#history .version", (t) => t.includes("you"));
  await s.clickOn("#history .version .compare");
  await s.wait("#diff-pane .diff", { text: (t) => t.includes("My machine") });
  await shot("46-page-history");

  // Revert to compiled drops the person's work (a confirm first).
  await s.exec("window.confirm = () => true");
  await s.clickOn("#page-revert");
  await s.wait("#article-body", { text: (t) => !t.includes("My machine") && t.includes("Crema is the foam") });
  assert.equal((await s.findAll("#claims .badge-yours")).length, 0, "the person's claim went with the revert");
  await shot("47-page-reverted");
});
