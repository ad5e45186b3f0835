// End-to-end: the real app (a debug build of src-tauri) under Xvfb, driven through
// tauri-driver + WebKitWebDriver, with a temp data dir and the local Ollama-protocol test
// server. Run by scripts/test-desktop.sh; needs APP, TESTSERVER and ARTIFACTS set.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer as startHarnessServer, wikiEnv } from "./harness.mjs";
import { Session, startDriver, stopDriver } from "./webdriver.mjs";

const APP = process.env.APP;
const TESTSERVER = process.env.TESTSERVER;
const ARTIFACTS = process.env.ARTIFACTS ?? join(tmpdir(), "wikimind-e2e-artifacts");
assert.ok(APP && TESTSERVER, "set APP (the app binary) and TESTSERVER (wikimind-testserver)");
mkdirSync(ARTIFACTS, { recursive: true });

const tmp = mkdtempSync(join(tmpdir(), "wikimind-e2e-"));
let server;
let mainUrl;
let driver;
let s;

async function shot(name) {
  await new Promise((r) => setTimeout(r, 300)); // let the last change paint
  writeFileSync(join(ARTIFACTS, `${name}.png`), await s.screenshot());
}

function startServer(models) {
  return startHarnessServer(TESTSERVER, models);
}

/** A proxy to the model server at `target` that holds the first request for `heldPath`
 * until `release()`: `held` resolves when that request arrived, `answered` once its reply
 * was sent. */
function holdingProxy(target, heldPath) {
  let reached, release, sent;
  const held = new Promise((r) => (reached = r));
  const released = new Promise((r) => (release = r));
  const answered = new Promise((r) => (sent = r));
  let holding = true;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const hold = holding && req.url.startsWith(heldPath);
    if (hold) {
      holding = false;
      reached();
      await released;
    }
    const r = await fetch(target + req.url, {
      method: req.method,
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await r.arrayBuffer()));
    if (hold) sent();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        held,
        release,
        answered,
        close: () => (server.closeAllConnections(), server.close()),
      }),
    ),
  );
}

function env(baseUrl, name) {
  return wikiEnv(tmp, baseUrl, name);
}

before(async () => {
  ({ child: server, url: mainUrl } = await startServer());
  driver = await startDriver(env(mainUrl, "main"), join(ARTIFACTS, "tauri-driver.log"));
  s = await Session.start(driver.base, APP);
});

after(async () => {
  await s?.quit();
  await stopDriver(driver);
  server?.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
});

/** Whether a queue row's text is that of the page job of `title`. */
const isPageJob = (title) => (t) => /^page/i.test(t) && t.includes(title);

test("two linked notes: add, compile, open, follow the link, see the backlink, search", async () => {
  await s.wait("#nav-library");
  await s.wait("#counts", { text: (t) => t.includes("0 pages") });
  await shot("01-library-empty");

  // One note pasted, one by path.
  await s.clickOn("#nav-add");
  await s.fill("#paste-text", "# Espresso\n\nEspresso is brewed at nine bars of pressure.\nA shot takes about thirty seconds.\nIt is the base of a cappuccino with [[Milk Foam]] on top.\n");
  await s.clickOn("#add-text-btn");
  await s.waitCount(".source-row", 1);
  const note = join(tmp, "milk-foam.md");
  writeFileSync(note, "# Milk Foam\n\nMilk foam is made by steaming milk until it doubles in volume.\nSmall bubbles make it glossy.\nIt sits on an [[Espresso]] in a cappuccino.\n");
  await s.type("#path-input", note);
  await s.clickOn("#add-path-btn");
  await s.waitCount(".source-row", 2);

  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 2, 60000);
  await shot("02-add-sources");
  await s.clickOn("#nav-queue");
  await s.waitCount('.job[data-kind="source"][data-stage="compiled"]', 2);
  // Milk Foam links to Espresso, so the Espresso page is fed by both digests: a page job
  // brings it up to date after the sources, shown beside them.
  await s.waitAny('.job[data-kind="page"]', (t) => isPageJob("Espresso")(t) && /done/.test(t), 60000);
  await shot("03-queue");

  await s.clickOn("#nav-library");
  await s.wait("#counts", { text: (t) => t.includes("2 pages") });
  await s.waitCount(".lib-row", 2);
  await shot("04-library");

  await s.click(await s.waitAny(".lib-row", (t) => t.startsWith("Espresso")));
  await s.wait("#article-title", { text: (t) => t === "Espresso" });
  await s.wait("#backlinks .backlink", { text: (t) => t.includes("Milk Foam") });
  await s.wait("#sources h2", { text: (t) => t === "Sources (2)" });
  assert.equal((await s.findAll("#stale-notice")).length, 0, "its page job brought it up to date");
  // textContent: WebKitWebDriver reports "" as the text of a badge that may cut its label.
  await s.waitAny("#claims .source-badge", (t) => t.includes("Espresso"));
  await s.wait("#history .version", { text: (t) => t.startsWith("v1") && t.includes("e2e-model") });
  await shot("05-article");

  // Follow the wiki link in the body.
  await s.clickOn('#article-body a.wikilink[data-article-id]', { text: (t) => t.includes("Milk Foam") });
  await s.wait("#article-title", { text: (t) => t === "Milk Foam" });
  const backlink = await s.wait("#backlinks .backlink", { text: (t) => t.includes("Espresso") });
  assert.match(await s.text(backlink), /cappuccino/, "the backlink shows the sentence around the link");

  // A claim's quote against the source text.
  await s.clickOn("#claims .claim-text");
  const mark = await s.wait("#quote-mark");
  assert.ok((await s.text(mark)).length > 0);
  await shot("06-article-quote");

  // Back returns to the first article.
  await s.clickOn("#back");
  await s.wait("#article-title", { text: (t) => t === "Espresso" });

  // Search for a word from a body.
  await s.type("#search", "doubles");
  await s.waitAny(".search-hit", (t) => t.startsWith("Milk Foam") && t.includes("doubles"));
  await shot("07-search");
  await s.fill("#search", "");
  await s.wait("#counts", { text: (t) => t.includes("2 pages") });
});

test("a hostile model answer renders inert in the real webview", async () => {
  await s.clickOn("#nav-add");
  const hostile = [
    "# Hostile <img src=x onerror=\"window.__pwned='title'\">",
    "",
    "This note tries to attack whoever reads it.",
    "[[Espresso]] <script>window.__pwned = 'script'</script>",
    "[[Espresso]] <img src=x onerror=\"window.__pwned='img'\">",
    "[[Espresso]] [click me](javascript:window.__pwned='jslink')",
    "[[Espresso]] <a href=\"javascript:window.__pwned='rawlink'\">raw link</a> <b onclick=\"window.__pwned='onclick'\">bold</b>",
    "[[Espresso]] <iframe src=\"https://example.org/\"></iframe><style>body{display:none}</style>",
    "[[Espresso]] ![tracker](https://example.org/pixel.png) <svg onload=\"window.__pwned='svg'\"></svg>",
    "",
  ].join("\n");
  await s.fill("#paste-text", hostile);
  await s.clickOn("#add-text-btn");
  await s.waitCount(".source-row", 3);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 3, 60000);
  await s.clickOn("#nav-library");
  await s.waitCount(".lib-row", 3);
  await s.click(await s.waitAny(".lib-row", (t) => t.startsWith("Hostile")));
  const title = await s.wait("#article-title", { text: (t) => t.startsWith("Hostile") });
  assert.match(await s.text(title), /onerror/, "markup in the title shows as text");
  await shot("08-hostile-article");
  const inspect = () =>
    s.exec(`
    const body = document.getElementById('article-body');
    return {
      title: document.getElementById('article-title').textContent,
      pwned: window.__pwned === undefined ? null : String(window.__pwned),
      scripts: body.querySelectorAll('script').length,
      iframes: body.querySelectorAll('iframe, object, embed, svg, style').length,
      handlers: [...body.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
      jsUrls: [...body.querySelectorAll('[href],[src]')].filter(e => /^\\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('src') || '')).length,
      remote: [...body.querySelectorAll('img[src], source[src]')].filter(e => /^https?:/i.test(e.getAttribute('src'))).length,
      titleImgs: document.querySelectorAll('#article-title img').length,
      // Titles also show in the Sources panel, on claim badges and in the history: as text.
      mainMarkup: document.querySelectorAll('main img, main script, main iframe, main svg').length,
      badge: document.querySelector('#claims .source-badge')?.textContent ?? '',
      bodyVisible: getComputedStyle(document.body).display !== 'none',
      text: body.textContent,
    };`);
  const report = await inspect();
  assert.match(report.title, /^Hostile/);
  assert.equal(report.pwned, null, "no script ran");
  assert.equal(report.scripts, 0);
  assert.equal(report.iframes, 0);
  assert.equal(report.handlers, 0);
  assert.equal(report.jsUrls, 0);
  assert.equal(report.remote, 0, "no remote resource is loaded");
  assert.equal(report.titleImgs, 0);
  assert.equal(report.mainMarkup, 0, "no markup from a title anywhere on the page");
  assert.match(report.badge, /onerror/, "the claim's source badge shows the title as text");
  assert.ok(report.bodyVisible);
  assert.match(report.text, /click me/, "the link text stays readable");
  // Click everything in the body that is not a wiki link; nothing may run or navigate.
  for (const el of await s.findAll("#article-body a:not(.wikilink), #article-body b")) await s.click(el).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 500));
  const afterClicks = await inspect();
  assert.match(afterClicks.title, /^Hostile/, "still on the article");
  assert.equal(afterClicks.pwned, null, "no handler ran on click");
});

test("two notes on one topic, `Espresso` and `espressos`, are one page, written from every source naming it", async () => {
  await s.clickOn("#nav-add");
  await s.fill("#paste-text", "# espressos\n\nTwo espressos make a doppio.\nA ristretto uses less water.\n");
  await s.clickOn("#add-text-btn");
  await s.waitCount(".source-row", 4);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 4, 60000);

  // One row, not two: the library lists pages, and this one is fed by every source that
  // names it (by its title, or by a link). Its page job, run after the sources, brings it
  // up to date: it loses its stale mark.
  await s.clickOn("#nav-library");
  await s.waitCount(".lib-row", 3);
  const isTopic = (t) => t.startsWith("Espresso") && /\d sources/.test(t) && !/stale/i.test(t);
  await s.waitAny(".lib-row", isTopic, 60000);
  assert.equal((await s.findAll(".lib-row")).length, 3, "no second Espresso row");
  await shot("13-library-one-topic");

  // The queue shows the page jobs beside the source jobs (one per run that changed the
  // page: this note's, and the earlier ones), none left waiting.
  await s.clickOn("#nav-queue");
  await s.waitAny('.job[data-kind="page"]', (t) => isPageJob("Espresso")(t) && /done/.test(t));
  assert.equal((await s.findAll('.job[data-kind="page"] progress')).length, 0, "no page job left");
  await shot("12-queue-page-job");
  await s.clickOn("#nav-library");

  await s.click(await s.waitAny(".lib-row", isTopic));
  await s.wait("#article-title", { text: (t) => t === "Espresso" });
  const heading = await s.text(await s.wait("#sources h2", { text: (t) => /^Sources \(\d+\)$/.test(t) }));
  assert.equal((await s.findAll("#stale-notice")).length, 0, "written from all of them");
  await s.wait("#aliases", { text: (t) => t.includes("espressos") });
  const digests = await s.findAll("#sources .digest-link");
  assert.equal(`Sources (${digests.length})`, heading);
  let espressos;
  for (const d of digests) if ((await s.text(d)) === "espressos") espressos = d;
  assert.ok(espressos, "the new note's digest is among the page's sources");
  await shot("14-page-two-sources");

  // A digest opens from the panel, and leads back to the page it feeds.
  await s.click(espressos);
  await s.wait("#digest-title", { text: (t) => t === "espressos" });
  await s.wait("#source-pages .fed-page", { text: (t) => t.includes("Espresso") && /\d sources/.test(t) });
  await s.clickOn("#claims .claim-text");
  assert.match(await s.text(await s.wait("#quote-mark")), /doppio|ristretto|espressos/);
  await shot("15-digest");
  await s.clickOn("#source-pages .fed-page a");
  await s.wait("#article-title", { text: (t) => t === "Espresso" });

  // The Sources screen lists every source with the pages it feeds.
  await s.clickOn("#nav-sources");
  await s.waitCount(".source-card", 4);
  await s.click(await s.waitAny(".source-card", (t) => t.startsWith("Milk Foam")));
  await s.wait("#digest-title", { text: (t) => t === "Milk Foam" });
  await shot("16-sources-digest");
});

test("a recompiled source gives its page a second version, compared with the first", async () => {
  writeFileSync(join(tmp, "milk-foam.md"), "# Milk Foam\n\nMilk foam is made by steaming milk until it doubles in volume.\nOat milk foams too, with larger bubbles.\nIt sits on an [[Espresso]] in a cappuccino.\n");
  await s.clickOn("#nav-add");
  await s.fill("#path-input", join(tmp, "milk-foam.md"));
  await s.clickOn("#add-path-btn");
  await s.waitCount('.source-row[data-status="stale"]', 1);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', 4, 60000);

  await s.clickOn("#nav-library");
  await s.click(await s.waitAny(".lib-row", (t) => t.startsWith("Milk Foam")));
  await s.wait("#article-title", { text: (t) => t === "Milk Foam" });
  await s.wait("#history h2", { text: (t) => t === "History (2)" });
  await s.clickOn('#history .version[data-version="1"] .compare');
  await s.wait("#diff-pane .diff-add", { text: (t) => t.includes("Oat milk foams too") });
  await shot("17-page-history-diff");

  // Restoring version 1 adds version 3, written by the person; nothing is lost.
  await s.clickOn('#history .version[data-version="1"] .restore');
  await s.wait("#history h2", { text: (t) => t === "History (3)" });
  await s.wait('#history .version[data-version="3"]', { text: (t) => t.includes("restored version 1") });
  await s.wait("#claims", { text: (t) => t.includes("Small bubbles") && !t.includes("Oat milk") });
  await shot("18-page-restored");
});

/** Uses the model server at `url` from now on, through the settings screen. */
async function useServer(url) {
  await s.clickOn("#nav-settings");
  await s.wait("#connection-result", { text: (t) => t.length > 0 && !t.includes("Testing") });
  await s.exec("const k = document.querySelector('#provider-kind'); k.value = 'ollama'; k.dispatchEvent(new Event('change', { bubbles: true }));");
  await s.fill("#base-url", url);
  await s.fill("#model", "e2e-model");
  await s.exec("document.querySelector('#status').textContent = ''");
  await s.clickOn("#apply-provider");
  await s.wait("#status", { text: (t) => t.includes(url) });
}

/** The text of the element `css` matches, through textContent (never empty for a hidden
 * or clipped element, as WebDriver's text can be). */
const textOf = (css) => s.exec("const el = document.querySelector(arguments[0]); return el ? el.textContent : null;", [css]);

test("ask: a streamed answer, its claims, a citation followed to its quote and source, saved apart from topics; an uncovered question", async () => {
  await s.clickOn("#nav-ask");
  await s.fill("#ask-input", "How is espresso brewed?");
  await s.clickOn("#ask-btn");
  const answer = await s.wait("#ask-answer", { timeout: 60000 });
  assert.match(await s.text(answer), /espresso/i);
  const claims = await s.findAll("#ask-claims .cited-claim");
  assert.ok(claims.length >= 1, "the answer makes claims");
  // Every claim of the stand-in quotes its page: marked as found there.
  const first = await s.wait('#ask-claims .cited-claim[data-grounded="true"]');
  assert.match(await s.text(first), /quote found in Espresso/);
  await s.wait("#ask-read .read-page", { text: (t) => t === "Espresso" });
  assert.ok((await s.findAll("#ask-save")).length === 1, "an answer can be saved");
  // A page title with markup, quoted in the answer or its follow-ups, stays text.
  assert.equal(await s.exec("return window.__pwned === undefined ? null : String(window.__pwned)"), null);
  assert.equal(await s.exec("return document.querySelectorAll('main img, main script, main iframe, main svg').length"), 0);
  await shot("19-ask-answer");

  // A citation opens its page with the quote marked, and leads on to the source.
  const quote = await s.exec("return document.querySelector('#ask-claims .cited-claim[data-grounded=\"true\"]').dataset.quote");
  await s.clickOn('#ask-claims .cited-claim[data-grounded="true"] .cited-page');
  await s.wait("#article-title", { text: (t) => t === "Espresso" });
  await s.wait("#cited-quote blockquote", { text: (t) => t === quote });
  // The core marked it where the page shows it: the body's marks, read together, are the
  // quote; else the summary or a claim holds it.
  await s.wait("#wm-cited-quote, p.summary.cited, #claims .claim.cited");
  const read = (t) => t.replace(/\[\[(?:[^\]|]*\|)?([^\]]*)\]\]/g, "$1").replace(/[*_`\s]+/g, " ").trim().toLowerCase();
  const marked = await s.exec("return [...document.querySelectorAll('#article-body mark.cited-quote')].map((m) => m.textContent).join('')");
  const holder = await s.exec("return document.querySelector('p.summary.cited, #claims .claim.cited')?.textContent ?? ''");
  assert.ok(marked ? read(marked) === read(quote) : read(holder).includes(read(quote)), `the mark is the quote: ${marked || holder} / ${quote}`);
  await s.wait("#cited-where", { text: (t) => t.includes("Marked on this page") });
  await shot("20-ask-citation-on-page");
  await s.clickOn("#cited-in-source");
  await s.wait("#source-pane #quote-mark");
  await shot("21-ask-citation-in-source");

  // Back on the Ask screen the answer is still there; Save files it as an answer page.
  await s.clickOn("#back");
  await s.wait("#ask-answer");
  await s.clickOn("#ask-save");
  const saved = await s.wait("#ask-saved", { text: (t) => t.includes("How is espresso brewed?") });
  assert.ok(saved);
  assert.equal((await s.findAll("#ask-save")).length, 0, "saved once");
  await shot("22-ask-saved");

  // The library lists it apart from the topics, which it does not join.
  await s.clickOn("#nav-library");
  await s.wait("#counts", { text: (t) => t.includes("3 pages") && t.includes("1 saved answer") });
  await s.waitAny("#answers-list .answer-row", (t) => t.includes("How is espresso brewed?") && t.includes("answer"));
  assert.equal((await s.findAll(".lib-row")).length, 3, "the answer is no topic row");
  await shot("23-library-saved-answer");

  // The saved page: an answer, whose claims cite their pages.
  await s.clickOn("#answers-list .answer-title");
  await s.wait("#article-title", { text: (t) => t === "How is espresso brewed?" });
  await s.wait("#answer-kicker", { text: (t) => /^saved answer$/i.test(t) });
  await s.wait("#cites li", { text: (t) => t.includes("Espresso") });
  assert.equal((await s.findAll("#sources")).length, 0, "no source feeds an answer");

  // A follow-up question is asked with a click (when the answer offers one).
  await s.clickOn("#nav-ask");
  const followUps = await s.findAll("#ask-followups .follow-up");
  if (followUps.length) {
    const next = await textOf("#ask-followups .follow-up");
    await s.click(followUps[0]);
    await s.wait("#ask-answer, #ask-error, #ask-not-covered", { timeout: 60000 });
    assert.equal(await s.exec("return document.querySelector('#ask-input').value"), next);
  }

  // A question no page covers is said so, without a model call.
  await s.fill("#ask-input", "What is a quark?");
  await s.clickOn("#ask-btn");
  const notCovered = await s.wait("#ask-not-covered", { text: (t) => t.includes("does not cover") && t.includes("quark") });
  assert.match(await s.text(notCovered), /No model was asked/);
  assert.equal((await s.findAll("#ask-save")).length, 0, "nothing to save");
  await shot("24-ask-not-covered");
});

test("ask: the answer streams in as text; a quote the cited page does not hold is marked, shown inferred, and its saved page marked", async () => {
  // A server that answers the next question slowly, with one claim whose quote is nowhere.
  const reply = {
    answer: "A cappuccino is an [[Espresso]], brewed at nine bars of pressure, under [[Milk Foam]]. Some say cold oat milk always makes the best foam.",
    claims: [
      { claim: "Espresso is brewed at nine bars of pressure.", confidence: "sourced", quote: "Espresso is brewed at nine bars of pressure.", page: "Espresso" },
      { claim: "Cold oat milk makes the best foam.", confidence: "sourced", quote: "Cold oat milk always makes the best foam.", page: "Milk Foam" },
    ],
    follow_up_questions: ["What is a doppio?"],
  };
  const answers = join(tmp, "slow-answer.jsonl");
  writeFileSync(answers, `${JSON.stringify({ text: JSON.stringify(reply), chunk_chars: 4, chunk_delay_ms: 40 })}\n`);
  const slow = await startServer(["--answers", answers, "--model", "e2e-model"]);
  try {
    await useServer(slow.url);
    await s.clickOn("#nav-ask");
    await s.fill("#ask-input", "What goes into a cappuccino?");
    await s.clickOn("#ask-btn");
    // While the model writes, its text so far shows as plain text, the stage above it.
    await s.wait("#ask-stream", { text: (t) => t.length >= 10 && reply.answer.startsWith(t) });
    await s.wait("#ask-progress", { text: (t) => /answering · \d+ tokens/.test(t) });
    assert.equal((await s.findAll("#ask-answer")).length, 0, "not rendered while it streams");
    assert.equal((await s.findAll("#ask-stream a, #ask-stream mark")).length, 0, "streamed text is text");
    await shot("25-ask-streaming");

    // Then the rendered answer: links to the pages, and each claim with its citation.
    await s.wait('#ask-answer a.wikilink[data-article-id]', { text: (t) => t === "Espresso", timeout: 30000 });
    assert.equal(await textOf("#ask-stream"), "", "the streamed text gave way to the answer");
    const missing = await s.wait("#ask-claims .cited-claim.not-found");
    const text = await s.text(missing);
    assert.match(text, /quote not found in Milk Foam: shown as inferred/);
    assert.match(text, /inferred/);
    assert.match(text, /Cold oat milk always makes the best foam/);
    await s.wait("#ask-claims h2", { text: (t) => t.includes("1 quote not found") });
    await s.wait("#ask-claims .cited-claim.found", { text: (t) => t.includes("quote found in Espresso") });
    await shot("26-ask-quote-not-found");

    // Saved, the answer page is marked in the library and on the page.
    await s.clickOn("#ask-save");
    await s.wait("#ask-saved");
    await s.clickOn("#nav-library");
    const row = await s.waitAny("#answers-list .answer-row", (t) => t.includes("What goes into a cappuccino?"));
    assert.match(await s.exec("return arguments[0].textContent", [{ "element-6066-11e4-a52e-4f735466cecf": row }]), /marked/);
    await s.wait("#counts", { text: (t) => t.includes("2 saved answers") });
    await shot("27-library-answer-marked");
    await s.click(await s.waitAny("#answers-list .answer-title", (t) => t.includes("cappuccino")));
    await s.wait("#flagged", { text: (t) => t.includes("1 of 2 claims") });
    await s.wait("#claims .cited-claim.not-found", { text: (t) => t.includes("shown as inferred") });
    await shot("28-answer-page-marked");

    // From the saved page, a citation still opens its page at the quote.
    await s.clickOn("#claims .cited-claim.found .cited-page");
    await s.wait("#article-title", { text: (t) => t === "Espresso" });
    await s.wait("#cited-quote", { text: (t) => t.includes("nine bars of pressure") });
    await s.wait("#wm-cited-quote, p.summary.cited, #claims .claim.cited, #source-pane #quote-mark");
  } finally {
    await useServer(mainUrl).catch(() => undefined);
    slow.child.kill("SIGTERM");
  }
});

test("screens: a reply for a screen the person left is dropped; a finished job keeps the library's scroll and focus", async () => {
  // Enough pages for the library to scroll: a folder of notes, compiled by the main server.
  const folder = join(tmp, "more-notes");
  mkdirSync(folder, { recursive: true });
  const sentence = (i) => `Note number ${i} keeps the count of the shelf ${i}.`;
  for (let i = 1; i <= 12; i++) {
    writeFileSync(join(folder, `note-${String(i).padStart(2, "0")}.md`), `# Zz Note ${String(i).padStart(2, "0")}\n\n${sentence(i)}\n`);
  }
  await s.clickOn("#nav-add");
  await s.waitCount(".source-row", 4);
  const before = (await s.findAll(".source-row")).length;
  await s.fill("#path-input", folder);
  await s.clickOn("#add-path-btn");
  await s.waitCount(".source-row", before + 12);
  await s.clickOn("#compile-all");
  await s.waitCount('.source-row[data-status="compiled"]', before + 12, 120000);

  // A server that answers slowly: first a question, then the compile of one more note.
  const answer = {
    answer: "An [[Espresso]] is brewed at nine bars of pressure.",
    claims: [{ claim: "Espresso is brewed at nine bars of pressure.", confidence: "sourced", quote: "Espresso is brewed at nine bars of pressure.", page: "Espresso" }],
    follow_up_questions: [],
  };
  const digest = {
    title: "Zz Note 13",
    summary: sentence(13),
    key_claims: [{ claim: sentence(13), confidence: "sourced", quote: sentence(13) }],
    concepts: [],
    backlink_suggestions: [],
    open_questions: [],
    article_body: sentence(13),
  };
  const answers = join(tmp, "slow-screens.jsonl");
  writeFileSync(
    answers,
    [
      { text: JSON.stringify(answer), chunk_chars: 4, chunk_delay_ms: 60 },
      { text: JSON.stringify(digest), chunk_chars: 2, chunk_delay_ms: 60 },
    ]
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(""),
  );
  const slow = await startServer(["--answers", answers, "--model", "e2e-model"]);
  const pagesIn = (t) => Number(/(\d+) pages?\b/.exec(t)?.[1] ?? NaN);
  const listState = () =>
    s.exec("const l = document.querySelector('#library-list'); return l && { top: l.scrollTop, focused: document.activeElement === l, screen: document.body.dataset.screen };");
  try {
    await useServer(slow.url);

    // Ask, and leave for the library while the answer streams in.
    await s.clickOn("#nav-ask");
    await s.fill("#ask-input", "How many bars brew an espresso?");
    await s.clickOn("#ask-btn");
    await s.wait("#ask-stream", { text: (t) => t.length > 0 });
    await s.clickOn("#nav-library");
    await s.wait("#counts");
    // The answer arrives while the library is on screen: said in the status line, kept for
    // the Ask screen, never painted over the screen the person moved to.
    await s.wait("#status", { text: (t) => t === "Answered", timeout: 60000 });
    assert.equal(await s.exec("return document.body.dataset.screen"), "library");
    assert.equal((await s.findAll("main #ask-answer, main #ask-stream, main #ask-input")).length, 0, "no part of the Ask screen on the library");
    await s.wait("#library-list");
    await shot("29-library-after-a-late-answer");
    await s.clickOn("#nav-ask");
    await s.wait("#ask-answer", { text: (t) => t.includes("nine bars") });

    // One more note, compiled slowly; meanwhile the library is scrolled and focused.
    writeFileSync(join(folder, "note-13.md"), `# Zz Note 13\n\n${sentence(13)}\n`);
    await s.clickOn("#nav-add");
    await s.waitCount(".source-row", before + 12);
    await s.fill("#path-input", join(folder, "note-13.md"));
    await s.clickOn("#add-path-btn");
    await s.waitCount(".source-row", before + 13);
    await s.clickOn("#compile-all");
    await s.clickOn("#nav-library");
    await s.wait("#library-list");
    const pages = pagesIn(await s.text(await s.wait("#counts")));
    await s.exec("const l = document.querySelector('#library-list'); l.focus(); l.scrollTop = 150; l.dispatchEvent(new Event('scroll'));");
    const scrolled = await listState();
    assert.ok(scrolled.top > 0, "the library scrolls");
    assert.ok(scrolled.focused, "the list has the focus");
    assert.equal(pagesIn(await s.text(await s.find("#counts"))), pages, "the job is still running (else this test proves nothing)");

    // The job finishes: the library reloads in place (its counts change), scroll and focus kept.
    await s.wait("#counts", { text: (t) => pagesIn(t) > pages, timeout: 60000 });
    await shot("30-library-scroll-kept");
    assert.deepEqual(await listState(), scrolled, "same scroll position and focus after the job finished");

    // The recompile dialog lists the server's models, and goes when closed.
    await s.clickOn("#nav-sources");
    await s.click(await s.waitAny(".source-card", (t) => t.startsWith("Zz Note 13")));
    await s.clickOn("#source-origin button.link");
    await s.waitAny("dialog.modal #recompile-model option", (t) => t === "e2e-model");
    await shot("31-recompile-dialog");
    await s.clickOn("dialog.modal .buttons button");
    for (let i = 0; i < 50 && (await s.findAll("dialog.modal")).length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await s.findAll("dialog.modal")).length, 0, "the dialog is gone");
  } finally {
    await useServer(mainUrl).catch(() => undefined);
    slow.child.kill("SIGTERM");
  }
});

test("a vault: tags filter the library, a section link opens its page, an embedded image is a named chip", async () => {
  const vault = join(tmp, "vault");
  mkdirSync(join(vault, ".obsidian"), { recursive: true });
  writeFileSync(join(vault, ".obsidian", "app.json"), "{}");
  writeFileSync(join(vault, "grinder.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
  writeFileSync(
    join(vault, "Burr Grinder.md"),
    "---\ntags: [gear, coffee/tools]\n---\n# Burr Grinder\n\nA burr grinder crushes beans evenly.\n" +
      "Clean it like the wand: [[Steam Wand#Cleaning|cleaning the wand]] and ![[grinder.png|200]].\n",
  );
  writeFileSync(
    join(vault, "Steam Wand.md"),
    "# Steam Wand\n\nA steam wand heats milk with steam.\nIt sits beside the [[Burr Grinder]].\n\n## Cleaning\n\nWipe the wand after every use.\n",
  );
  await s.clickOn("#nav-add");
  await s.type("#path-input", vault);
  await s.clickOn("#add-path-btn");
  await s.waitAny(".source-row", (t) => t.includes("Burr Grinder"));
  await s.clickOn("#compile-all");
  await s.waitAny('.source-row[data-status="compiled"]', (t) => t.includes("Steam Wand"), 60000);
  await s.waitAny('.source-row[data-status="compiled"]', (t) => t.includes("Burr Grinder"), 60000);

  // The library's tag filter: `coffee` also takes the nested `coffee/tools`.
  await s.clickOn("#nav-library");
  await s.waitAny("#tag-filter option", (t) => t === "#coffee/tools");
  await s.waitAny("#tag-filter option", (t) => t === "#coffee");
  const pickTag = (tag) =>
    s.exec(
      "const el = document.querySelector('#tag-filter'); el.value = arguments[0]; el.dispatchEvent(new Event('change', { bubbles: true }));",
      [tag],
    );
  const rowCount = async (n) => {
    for (let i = 0; i < 100 && (await s.findAll(".lib-row")).length !== n; i++) await new Promise((r) => setTimeout(r, 100));
    return (await s.findAll(".lib-row")).length;
  };
  await pickTag("gear");
  assert.equal(await rowCount(1), 1, "only the page tagged #gear");
  await s.waitAny(".lib-row", (t) => t.startsWith("Burr Grinder") && t.includes("#gear"));
  // The counts say what the filter shows of all.
  await s.wait("#counts", { text: (t) => /^1 of \d+ pages tagged #gear · /.test(t) });
  await shot("33-library-tag-filter");

  await s.click(await s.waitAny(".lib-row", (t) => t.startsWith("Burr Grinder")));
  await s.wait("#article-title", { text: (t) => t === "Burr Grinder" });
  await s.wait("#tags", { text: (t) => t.includes("#gear") && t.includes("#coffee/tools") });
  // The embedded image is named, never loaded.
  await s.wait("#article-body .attachment", { text: (t) => t.includes("grinder.png") });
  assert.equal((await s.findAll("#article-body img")).length, 0, "no image is loaded");
  const anchor = await s.exec("return document.querySelector('#article-body a.wikilink[data-anchor]')?.getAttribute('data-anchor')");
  assert.equal(anchor, "wm-cleaning");
  await shot("34-page-tags-and-attachment");
  await s.clickOn("#article-body a.wikilink[data-anchor]");
  await s.wait("#article-title", { text: (t) => t === "Steam Wand" });

  // Back to every page.
  await s.clickOn("#nav-library");
  await pickTag("coffee");
  assert.equal(await rowCount(1), 1, "#coffee takes the nested #coffee/tools");
  await pickTag("");
  await s.waitAny(".lib-row", (t) => t.startsWith("Steam Wand"));
  assert.ok((await s.findAll(".lib-row")).length > 1, "every page again");
});

test("settings: the model picker is filled from the server and the connection test says so", async () => {
  await s.clickOn("#nav-settings");
  await s.wait("#connection-result", { text: (t) => t.includes("answered") });
  const options = await s.findAll("#model-picker option");
  assert.ok(options.length >= 3, "placeholder plus the server's two models");
  await shot("09-settings");
});

test("settings: a watched folder added picks up a new note, compiled into a page", async () => {
  const folder = join(tmp, "watched-notes");
  mkdirSync(folder, { recursive: true });
  await s.clickOn("#nav-settings");
  await s.fill("#watch-path", folder);
  await s.clickOn("#watch-add");
  await s.wait('.watched-folder[data-state="watching"]', { text: (t) => t.includes("watched-notes") });
  writeFileSync(join(folder, "kettle.md"), "# Kettle\n\nA kettle boils water for tea in a few minutes.\n");
  await s.wait("#watch-last", { text: (t) => t.includes("kettle.md") });
  await shot("11-settings-watched-folder");
  await s.clickOn("#nav-library");
  await s.waitAny(".lib-row", (t) => t.startsWith("Kettle"), 60000);
  await s.clickOn("#nav-settings");
  await s.clickOn(".watch-remove");
  await s.wait("#watched-none");
});

test("settings: a key saved for one server is never sent to another; llama3.2 is llama3.2:latest", async () => {
  // Server B lists only llama3.2:latest; server A is the one the app started with.
  const b = await startServer(["--model", "llama3.2:latest"]);
  const a = mainUrl;
  const seen = async (url) => (await fetch(`${url}/testserver/requests`)).json();
  const form = async (kind, baseUrl, model) => {
    await s.exec(
      "const k = document.querySelector('#provider-kind'); k.value = arguments[0]; k.dispatchEvent(new Event('change', { bubbles: true }));",
      [kind],
    );
    await s.fill("#base-url", baseUrl);
    await s.fill("#model", model);
  };
  const test = async (expect) => {
    await s.exec("document.querySelector('#connection-result').textContent = ''");
    await s.clickOn("#test-connection");
    return s.wait("#connection-result", { text: expect });
  };
  try {
    await s.clickOn("#nav-settings");
    await s.wait("#connection-result", { text: (t) => t.includes("answered") });

    // A key for server A, in the real keyring (Secret Service), then the test against A
    // carries it: the positive control.
    await form("openai", `${a}/v1`, "e2e-model");
    await s.type("#api-key", "sk-e2e-for-server-a");
    await s.clickOn("#save-key");
    await s.wait("#status", { text: (t) => t.includes("Key saved") });
    await test((t) => t.includes("answered"));
    const toA = (await seen(a)).filter((r) => r.path === "/v1/models");
    assert.ok(toA.length > 0, "the connection test listed server A's models");
    assert.equal(toA.at(-1).headers.authorization, "Bearer sk-e2e-for-server-a");

    // The same form pointed at server B: B answers, and never sees A's key.
    await form("openai", `${b.url}/v1`, "llama3.2:latest");
    await test((t) => t.includes("answered"));
    const toB = await seen(b.url);
    assert.ok(toB.some((r) => r.path === "/v1/models"), "the connection test reached server B");
    for (const r of toB) assert.equal(r.headers.authorization, undefined, `${r.method} ${r.path} carried a key`);

    // Ollama: a name without a tag is the :latest one.
    await form("ollama", b.url, "llama3.2");
    const result = await test((t) => t.includes("answered"));
    assert.match(await s.text(result), /llama3\.2 among them/);
    assert.equal((await s.findAll("#connection-result .ok")).length, 1, "shown as available");
    await shot("10-settings-llama3.2-available");
  } finally {
    b.child.kill("SIGTERM");
  }
});

test("first run: an unreachable Ollama gets a screen saying what to do", async () => {
  await s.quit();
  await stopDriver(driver);
  // A model folder holding a file that only claims to be a model: the built-in engine is
  // offered, and choosing it must say what is wrong with that file.
  const models = join(tmp, "first-run-models");
  mkdirSync(models, { recursive: true });
  writeFileSync(join(models, "tiny.gguf"), "not a model at all\n");
  driver = await startDriver({ ...env("http://127.0.0.1:9", "first-run"), WIKIMIND_MODEL_PATH: models, GTK_THEME: "Adwaita:dark" }, join(ARTIFACTS, "tauri-driver.log"));
  s = await Session.start(driver.base, APP);
  const problem = await s.wait("#welcome-problem", { timeout: 30000 });
  assert.match(await s.text(problem), /127\.0\.0\.1:9/);
  await s.wait("#welcome", { text: (t) => t.includes("ollama serve") });
  await shot("10-first-run");
});

test("first run: the built-in engine is offered, and a bad model file is named", async () => {
  const offer = await s.wait("#builtin-offer", { text: (t) => t.includes("built-in engine") });
  const builtinBuild = (await s.findAll("#welcome-builtin")).length > 0;
  if (!builtinBuild) assert.match(await s.text(offer), /builtin` feature/, "a build without the engine says how to get one");
  // Choosing the built-in engine turns the address field into a model-file field.
  await s.exec("const k = document.querySelector('#provider-kind'); k.value = 'builtin'; k.dispatchEvent(new Event('change'));");
  const shape = await s.exec("const shown = (el) => getComputedStyle(el).display !== 'none'; return { base: document.querySelector('#base-url').value, choose: shown(document.querySelector('#choose-model-file')), model: !shown(document.querySelector('#model').closest('label')), hints: [...document.querySelectorAll('#welcome p')].filter((p) => shown(p) && p.textContent.includes('built-in engine')).length, label: document.querySelector('#base-url').closest('label').textContent };");
  assert.match(shape.base, /first-run-models[\\/]tiny\.gguf$/, "the model file found in WIKIMIND_MODEL_PATH");
  assert.ok(shape.choose, "a file picker button");
  assert.ok(shape.model, "no separate model field shown: the file names the model");
  assert.equal(shape.hints, 1, "the built-in engine's hint is said once");
  assert.match(shape.label, /Model file/);
  await s.clickOn("#welcome-retry");
  const result = await s.wait("#welcome-result", { text: (t) => t.length > 0 });
  const message = await s.text(result);
  if (builtinBuild) assert.match(message, /tiny\.gguf/, "the bad file is named");
  else assert.match(message, /builtin/, "the missing engine is explained");
  await shot("11-first-run-builtin");
});

test("a wiki with pages opens on its library, the unreachable model a banner over it", async () => {
  await s.quit();
  await stopDriver(driver);
  // The first test's wiki (two compiled pages), now with no model server answering.
  driver = await startDriver(env("http://127.0.0.1:9", "main"), join(ARTIFACTS, "tauri-driver.log"));
  s = await Session.start(driver.base, APP);
  const banner = await s.wait("#model-banner", { text: (t) => t.includes("127.0.0.1:9"), timeout: 30000 });
  assert.ok(banner);
  await s.waitAny(".lib-row", (t) => t.startsWith("Espresso"));
  assert.equal((await s.findAll("#welcome")).length, 0, "no first-run screen over a wiki with pages");
  await shot("12-library-with-model-banner");
  await s.clickOn("#banner-setup");
  await s.wait("#welcome-problem", { text: (t) => t.includes("127.0.0.1:9") });
});

test("screens: a slow check on the first-run screen does not move a person who went elsewhere", async () => {
  // On the first-run screen (from the banner), "Check again" against a server whose model
  // list is held back; the person goes to Settings before it answers. The check succeeds,
  // but it belongs to a screen they left: it must not take them to the library.
  const real = await startServer();
  const proxy = await holdingProxy(real.url, "/api/tags");
  try {
    await s.wait("#welcome-problem");
    await s.fill("#base-url", proxy.url);
    await s.fill("#model", "e2e-model");
    await s.clickOn("#welcome-retry");
    await proxy.held;
    await s.clickOn("#nav-settings");
    await s.wait("#connection-result", { text: (t) => t.length > 0 && !t.includes("Testing") });
    proxy.release();
    await proxy.answered;
    // Nothing follows a dropped reply, so there is no event to wait for: the screen is
    // watched for a while (the old window moved within milliseconds of the reply).
    for (const until = Date.now() + 2000; Date.now() < until; ) {
      assert.equal(await s.exec("return document.body.dataset.screen"), "settings", "still on Settings");
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await s.findAll("#welcome, .library")).length, 0);
    await shot("32-settings-after-a-late-check");
  } finally {
    proxy.close();
    real.child.kill("SIGTERM");
  }
});
