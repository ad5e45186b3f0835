// End-to-end: a PDF's citations in the real window. A five-page PDF (written by reportlab,
// pages labelled i, ii, 1, 2, 3) is ingested and compiled by the local test server; on its
// page, a citation is focused with the keyboard and shows the passage around its quote
// with its place and the source's title (the core slices it); Escape hides it; "Show on
// the page" shows the PDF page the core rendered with the quote's words highlighted over
// it. Run by scripts/e2e.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { closeApp, openApp, until } from "./harness.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "../../crates/documents/tests/data/page-labels.pdf");

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-citations-"));
let opened;
let s;

async function shot(name) {
  await sleep(400); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${name}.png`), await s.screenshot());
}

/** Presses keys through WebDriver's key actions (the keyboard a person uses). */
async function press(...keys) {
  const actions = keys.flatMap((k) => [{ type: "keyDown", value: k }, { type: "keyUp", value: k }]);
  await s.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
  await s.cmd("DELETE", "/actions").catch(() => undefined);
}
/** Presses Shift+Tab (back one focusable element). */
async function pressShiftTab() {
  const actions = [
    { type: "keyDown", value: SHIFT },
    { type: "keyDown", value: TAB },
    { type: "keyUp", value: TAB },
    { type: "keyUp", value: SHIFT },
  ];
  await s.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
  await s.cmd("DELETE", "/actions").catch(() => undefined);
}
const TAB = "\uE004";
const SHIFT = "\uE008";
const ESCAPE = "\uE00C";

/** What has the focus: its class and the passage it shows, if any. */
const focused = () =>
  s.exec(
    "const a = document.activeElement; const p = document.querySelector('#citation-popover'); return { cls: a?.className ?? '', page: a?.dataset?.page ?? null, popover: p ? p.textContent : null };",
  );

before(async () => {
  opened = await openApp({ app: APP, testserver: TESTSERVER, tmp, name: "citations", log: join(ARTIFACTS, "tauri-driver-citations.log") });
  s = opened.s;
});

after(async () => {
  await closeApp(opened, tmp);
});

test("citations: a PDF quote's passage on keyboard focus, and its page with the quote highlighted", async () => {
  const papers = join(tmp, "Papers");
  mkdirSync(papers, { recursive: true });
  copyFileSync(FIXTURE, join(papers, "page-labels.pdf"));

  await s.wait("#nav-library");
  await s.clickOn("#nav-add");
  await s.type("#path-input", join(papers, "page-labels.pdf"));
  await s.clickOn("#add-path-btn");
  await s.waitCount(".source-row", 1);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 1, 60000);

  // The page the PDF feeds, opened from the library; its claims cite pages of the PDF.
  await s.clickOn("#nav-library");
  await s.waitCount(".lib-row", 1);
  await s.click(await s.find(".lib-row"));
  await s.wait("#article-title");
  const cites = await until(
    "the claims' citations",
    () => s.exec("return [...document.querySelectorAll('#claims .citation-ref')].map((c) => [c.textContent.trim(), c.dataset.page ?? null])"),
    (c) => c.length > 0,
    20000,
  );
  // Each names its place by the printed page label; the second physical page is `ii`.
  assert.ok(cites.every(([label, page]) => /^p\. /.test(label) && page), JSON.stringify(cites));
  const target = cites.find(([, page]) => page === "2") ?? cites[0];
  const [label, page] = target;
  assert.ok(page, JSON.stringify(cites));

  // Keyboard: Tab from the claim's text reaches its citation, and the passage shows.
  await s.exec(
    "const c = [...document.querySelectorAll('#claims .citation-ref')].find((c) => c.dataset.page === arguments[0]); c.closest('.claim').querySelector('.claim-text').focus();",
    [page],
  );
  await press(TAB);
  let now = await until("Tab to reach the citation and show its passage", focused, (f) => f.popover !== null, 5000);
  assert.match(now.cls, /citation-ref/, JSON.stringify(now));
  assert.equal(now.page, page);
  // The passage: the quote in its line, the place and the source's title.
  assert.ok(now.popover.includes(`PHYS${page}`), now.popover);
  assert.ok(now.popover.includes(label), now.popover);
  assert.ok(now.popover.includes("page-labels"), now.popover);
  const quote = await s.exec("return document.querySelector('#citation-popover .citation-quote').textContent");
  assert.ok(quote.length > 0 && now.popover.includes(quote), quote);
  const described = await s.exec("return document.activeElement.getAttribute('aria-describedby')");
  assert.equal(described, "citation-popover");
  await shot("c1-citation-passage-on-focus");

  // Escape hides it; the focus stays on the citation.
  await press(ESCAPE);
  now = await until("Escape to hide the passage", focused, (f) => f.popover === null, 5000);
  assert.match(now.cls, /citation-ref/);

  // Focused again, it shows again; "Show on the page" shows the PDF page the core rendered.
  await pressShiftTab();
  await until("Shift+Tab to leave the citation", focused, (f) => /claim-text/.test(f.cls) && f.popover === null, 5000);
  await press(TAB);
  await until("Tab to show the passage again", focused, (f) => /citation-ref/.test(f.cls) && f.popover !== null, 5000);
  await s.clickOn("#citation-show-page");
  await s.wait("#citation-page-image", { timeout: 30000 });
  const shown = await until(
    "the page image drawn with its highlight",
    () =>
      s.exec(`
        const img = document.querySelector('#citation-page-image');
        const svg = document.querySelector('.citation-page-marks');
        const boxes = [...document.querySelectorAll('#citation-page .citation-box')];
        if (!img || !img.complete || !svg) return null;
        const ir = img.getBoundingClientRect();
        return {
          natural: [img.naturalWidth, img.naturalHeight],
          src: img.getAttribute('src').slice(0, 22),
          img: [ir.left, ir.top, ir.right, ir.bottom],
          boxes: boxes.map((b) => { const r = b.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }),
          head: document.querySelector('#citation-page .pane-head').textContent,
          note: document.querySelector('#citation-page-note')?.textContent ?? null,
        };`),
    (v) => v && v.natural[0] > 0 && v.boxes.length > 0,
    20000,
  );
  assert.equal(shown.src, "data:image/png;base64,");
  assert.equal(shown.natural[1], 1400, "rendered with its long side at 1400 px");
  assert.equal(shown.note, null, "the file is unchanged and the quote found");
  assert.ok(shown.head.includes(label), shown.head);
  // One line of quote: one box, inside the image, in its upper part (the line is at the
  // top of the page), narrower than the page.
  assert.equal(shown.boxes.length, 1, JSON.stringify(shown));
  const [l, top, r, b] = shown.boxes[0];
  const [il, it, ir, ib] = shown.img;
  assert.ok(l >= il && r <= ir && top >= it && b <= ib, JSON.stringify(shown));
  assert.ok(b - it < (ib - it) * 0.2, JSON.stringify(shown));
  assert.ok(r - l < (ir - il) * 0.7 && r - l > 10, JSON.stringify(shown));
  // The image holds the page's text under the highlight: dark pixels in the box, read back
  // from the image itself (a data: URL is the window's own origin).
  const ink = await s.exec(`
    const img = document.querySelector('#citation-page-image');
    const rect = document.querySelector('#citation-page .citation-box');
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((a) => Math.round(Number(rect.getAttribute(a))));
    const d = g.getImageData(x, y, w, h).data;
    let dark = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] < 200) dark++;
    return { dark, area: w * h };`);
  assert.ok(ink.dark > ink.area * 0.03, `the page's words lie under the box: ${JSON.stringify(ink)}`);
  await s.exec("document.querySelector('#citation-page').scrollIntoView({ block: 'start' })");
  await sleep(1500);
  await shot("c2-citation-page-image");
});

test("citations: a note's quote on its digest shows the sentences around it and its heading", async () => {
  const notes = join(tmp, "Notes");
  mkdirSync(notes, { recursive: true });
  writeFileSync(
    join(notes, "danube.md"),
    "# Rivers of Europe\n\n## The Danube\n\nThe Danube rises in the Black Forest of Germany. It flows east for about 2,850 kilometres through ten countries. Its delta on the Black Sea is a reserve for birds.\n",
  );
  await s.clickOn("#nav-add");
  await s.type("#path-input", join(notes, "danube.md"));
  await s.clickOn("#add-path-btn");
  await s.waitCount(".source-row", 2);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 2, 60000);

  // The digest of the note, from its page's Sources panel.
  await s.clickOn("#nav-library");
  await s.click(await s.waitAny(".lib-row", (t) => /Danube|Rivers/.test(t)));
  await s.wait("#article-title");
  await s.clickOn("#sources .digest-link");
  await s.wait("#digest-title");
  await s.wait("#claims .citation-ref");
  await s.exec("document.querySelector('#claims .citation-ref').closest('.claim').querySelector('.claim-text').focus()");
  await press(TAB);
  const now = await until("Tab to show the note's passage", focused, (f) => /citation-ref/.test(f.cls) && f.popover !== null, 5000);
  const parts = await s.exec(`
    const p = document.querySelector('#citation-popover');
    return {
      place: p.querySelector('.citation-place')?.textContent ?? null,
      title: p.querySelector('.citation-title').textContent,
      quote: p.querySelector('.citation-quote').textContent,
      passage: p.querySelector('.citation-passage').textContent,
      page: !!p.querySelector('#citation-show-page'),
    };`);
  // A note has headings, not pages: its place is the heading path's last heading, and no
  // page image is offered.
  assert.ok(parts.place?.startsWith("§ "), JSON.stringify(parts));
  assert.ok(/Danube|Rivers/.test(parts.place), JSON.stringify(parts));
  assert.equal(parts.page, false);
  assert.ok(parts.passage.includes(parts.quote), JSON.stringify(parts));
  // The passage holds more than the quote, cut at sentence ends (never inside a word).
  assert.ok(parts.passage.length > parts.quote.length, JSON.stringify(parts));
  assert.match(parts.passage.trim(), /[.…]$/, JSON.stringify(parts));
  assert.ok(now.popover.includes(parts.title));
  await shot("c3-note-passage-on-digest");
});

test("documents: a large PDF's pages show as they are read, and the line goes once it is read", async () => {
  // A PDF of 1,000 pages: the five-page fixture two hundred times over, joined by qpdf
  // (which scripts/setup.sh installs for page labels). Poppler reads it in a few seconds.
  const books = join(tmp, "Books");
  mkdirSync(books, { recursive: true });
  const big = join(books, "big.pdf");
  execFileSync("qpdf", ["--empty", "--pages", ...Array(200).fill(FIXTURE), "--", big]);

  await s.clickOn("#nav-add");
  // Every line the reading banner shows, as it shows it.
  await s.exec(`
    window.__reading = [];
    const banners = document.querySelector('.banners');
    new MutationObserver(() => {
      const line = document.querySelector('#reading-progress')?.textContent ?? null;
      if (line !== window.__reading[window.__reading.length - 1]) window.__reading.push(line);
    }).observe(banners, { childList: true, characterData: true, subtree: true });`);
  await s.type("#path-input", big);
  await s.clickOn("#add-path-btn");
  let shown = false;
  await until(
    "the add to end",
    async () => {
      const seen = await s.exec("return window.__reading.slice()");
      if (!shown && seen.some((l) => /page [1-9]\d* of 1000/.test(l ?? ""))) {
        shown = true;
        writeFileSync(join(ARTIFACTS, "c4-reading-progress.png"), await s.screenshot());
      }
      return s.exec("return document.querySelector('#status').textContent");
    },
    (status) => /1 source stored/.test(status),
    120000,
  );
  await s.waitCount(".source-row", 3);
  const lines = await until(
    "the reading line to go",
    () => s.exec("return window.__reading.slice()"),
    (seen) => seen[seen.length - 1] === null,
    10000,
  );
  const pages = lines
    .map((l) => /^Reading .*big\.pdf: page (\d+) of 1000$/.exec(l ?? ""))
    .filter(Boolean)
    .map((m) => Number(m[1]));
  // Seen while it was read: a page between the first and the last, in order.
  assert.ok(pages.some((n) => n > 0 && n < 1000), JSON.stringify(lines));
  assert.deepEqual(pages, [...pages].sort((a, b) => a - b), JSON.stringify(lines));
  assert.equal(await s.exec("return document.querySelector('#reading-progress')"), null);
});
