// End-to-end: a folder of markdown written by someone else, through the real window — two
// notes that share a name in different folders, linked to each other and from an overview
// with markdown links, ingested as a folder and compiled by the local test server. The
// library lists each note as a page of its own, with the folder that tells it apart (the
// core's `LibraryEntry.folder`), and a link written as a path opens the note it names. Run
// by scripts/e2e.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { closeApp, openApp } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-vault-"));
let opened;
let s;

async function shot(name) {
  await sleep(400); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${name}.png`), await s.screenshot());
}

/** Each library row's title and the folder shown beside it (`null`: none), now. */
const rows = () =>
  s.exec(
    "return [...document.querySelectorAll('#library-list .lib-row')].map((r) => [r.querySelector('.lib-title')?.textContent ?? '', r.querySelector('.lib-folder')?.textContent ?? null])",
  );

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
  opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "vault", log: join(ARTIFACTS, "tauri-driver-vault.log") });
  s = opened.s;
});

after(async () => {
  await closeApp(opened, tmp);
});

test("vault: two notes sharing a name in different folders are two pages, each shown with its folder", async () => {
  const vault = join(tmp, "Compiler Notes");
  const notes = {
    "src/Parser/constructor.md":
      "# constructor\n\nThe parser's constructor takes the token stream the [lexer's constructor](../Lexer/constructor.md) sets up.\nIt keeps one token of lookahead.\n",
    "src/Lexer/constructor.md":
      "# constructor\n\nThe lexer's constructor takes the source text and a cursor at its start.\nThe [parser](../Parser/constructor.md) reads the tokens it makes.\n",
    "Overview.md":
      "# Overview\n\nThe compiler reads text in two steps: a [lexer](src/Lexer/constructor.md) and a [parser](<src/Parser/constructor.md>).\nEach is built by its own constructor.\n",
  };
  for (const [path, text] of Object.entries(notes)) {
    mkdirSync(dirname(join(vault, path)), { recursive: true });
    writeFileSync(join(vault, path), text);
  }

  await s.wait("#nav-library");
  await s.clickOn("#nav-add");
  await s.type("#path-input", vault);
  await s.clickOn("#add-path-btn");
  await s.waitCount(".source-row", 3);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 3, 60000);

  await s.clickOn("#nav-library");
  const listed = await until(
    "both constructors in the library",
    rows,
    (r) => ["Parser/constructor", "Lexer/constructor", "Overview"].every((t) => r.some(([title]) => title === t)),
    30000,
  );
  const folderOf = (title) => listed.find(([t]) => t === title)?.[1];
  // Each note told apart shows the folder it is in (relative to the ingested folder); a
  // note whose name no other note has shows none.
  assert.equal(folderOf("Parser/constructor"), "in src/Parser/", JSON.stringify(listed));
  assert.equal(folderOf("Lexer/constructor"), "in src/Lexer/", JSON.stringify(listed));
  assert.equal(folderOf("Overview"), null, JSON.stringify(listed));
  // A file name alone never makes two notes one page.
  assert.ok(!listed.some(([t]) => t === "constructor"), JSON.stringify(listed));
  await shot("v1-library-told-apart");

  // A summary reads its markdown links as the page shows them: their text.
  const summary = await s.exec(
    "return [...document.querySelectorAll('#library-list .lib-row')].find((r) => r.querySelector('.lib-title').textContent === 'Overview').querySelector('.lib-summary').textContent",
  );
  assert.equal(summary, "The compiler reads text in two steps: a lexer and a parser.");

  // A page told apart opens from its row under its own title; the notes that link to it by
  // their markdown links are its backlinks.
  await s.click(await s.waitAny(".lib-row", (t) => t.startsWith("Parser/constructor")));
  await s.wait("#article-title", { text: (t) => t === "Parser/constructor" });
  await shot("v2-parser-constructor");
  const backlinks = await s.wait("#backlinks");
  const linked = await s.exec("return document.querySelector('#backlinks').textContent");
  assert.ok(backlinks && /Overview/.test(linked) && /Lexer\/constructor/.test(linked), linked);
  // Its claims and the backlinks' context read links as their text, not as markdown.
  const claims = await s.exec("return [...document.querySelectorAll('.claim-text')].map((c) => c.textContent)");
  assert.ok(claims.includes("The parser's constructor takes the token stream the lexer's constructor sets up."), JSON.stringify(claims));
  assert.ok(!/\]\(/.test(linked + claims.join(" ")), linked + JSON.stringify(claims));
  // The sources panel names the note by its path in the folder, never by the file name
  // both notes share.
  const origins = await s.exec("return [...document.querySelectorAll('#sources .origin')].map((o) => o.textContent.trim())");
  assert.ok(origins.includes("src/Parser/constructor.md"), JSON.stringify(origins));
  assert.ok(!origins.includes("constructor.md"), JSON.stringify(origins));
  // A markdown link written as a path in the body leads to the page of the note it names.
  await s.clickOn("#article-body a.wikilink[data-article-id]", { text: (t) => t === "lexer's constructor" });
  await s.wait("#article-title", { text: (t) => t === "Lexer/constructor" });
  await shot("v3-path-link-followed");
});
