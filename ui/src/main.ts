// The WikiMind window: a small router over its screens, fed by the generated commands.
import { listen } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open as openDialog } from "@tauri-apps/plugin-dialog";
import { openUrl } from "@tauri-apps/plugin-opener";
import {
  ASK_EVENT,
  commands,
  JOB_EVENT,
  type AnswerView,
  type AskProgress,
  type ClaimView,
  type ConnectionCheck,
  type IngestView,
  type JobProgress,
  type LibraryEntry,
  type LibrarySort,
  type LibraryView,
  type PageNameView,
  type PageSourceView,
  type PageTextView,
  type PageVersionView,
  type PageView,
  type ProviderForm,
  type QuoteView,
  type SearchResult,
  type SettingsView,
  type SourceView,
} from "./bindings";
import { append, h, replace, setSafeHtml } from "./dom";
import {
  applyJob,
  askStageLabel,
  citationMark,
  claimBadges,
  confidenceMix,
  finalUrlLabel,
  History,
  isFinished,
  jobFigures,
  jobTitle,
  keyAction,
  latestOnly,
  lineDiff,
  linkClick,
  originLabel,
  plainLinks,
  quoteSpans,
  sameQuote,
  sameScreen,
  scrollToReveal,
  shortTime,
  snippetParts,
  sourceCountLabel,
  stageLabel,
  staleNotice,
  visibleRange,
  wireDrop,
  type Screen,
} from "./logic";
import "./style.css";

const ROW = 68;

const state = {
  history: new History<Screen>(sameScreen),
  library: null as LibraryView | null,
  sort: "title" as LibrarySort,
  query: "",
  hits: null as SearchResult[] | null,
  selected: 0,
  jobs: [] as JobProgress[],
  models: [] as string[],
  settings: null as SettingsView | null,
  ask: {
    /** The question asked last (trimmed), whose answer or progress is shown. */
    question: "",
    /** Whether its answer is being written. */
    running: false,
    /** Whether the person stopped it. */
    stopped: false,
    /** Its progress while the model answers. */
    progress: null as AskProgress | null,
    /** Its answer, once made. */
    answer: null as AnswerView | null,
    /** Why the command failed (not an answer's own error, which the answer carries). */
    failure: null as string | null,
    /** Numbers each question, so a late reply to an earlier one is ignored. */
    seq: 0,
  },
};

const main = h("main", { id: "main", tabindex: "-1" });
const status = h("div", { id: "status", role: "status", "aria-live": "polite" });
const search = h("input", {
  id: "search",
  type: "search",
  placeholder: "Search the wiki  ( / )",
  autocomplete: "off",
  spellcheck: "false",
  "aria-label": "Search the wiki",
});
const backBtn = h("button", { id: "back", title: "Back (Alt+←)", "aria-label": "Back", onclick: () => back() }, "←");
const fwdBtn = h("button", { id: "forward", title: "Forward (Alt+→)", "aria-label": "Forward", onclick: () => forward() }, "→");
const queueBadge = h("span", { class: "badge", id: "queue-badge" });
const dropOverlay = h("div", { id: "drop-overlay", hidden: true }, h("div", {}, "Drop to add to the wiki"));
const banner = h("div", { id: "model-banner", role: "alert", hidden: true });

function navButton(id: string, label: string, screen: Screen, key: string, extra?: Node) {
  return h(
    "button",
    { id, class: "nav", title: `${label} (Alt+${key})`, onclick: () => go(screen) },
    label,
    extra ?? null,
  );
}

document.body.append(
  h(
    "header",
    {},
    backBtn,
    fwdBtn,
    h("strong", { class: "brand" }, "WikiMind"),
    navButton("nav-library", "Library", { kind: "library" }, "1"),
    navButton("nav-ask", "Ask", { kind: "ask" }, "6"),
    navButton("nav-sources", "Sources", { kind: "sources" }, "2"),
    navButton("nav-add", "Add sources", { kind: "add" }, "3"),
    navButton("nav-queue", "Queue", { kind: "queue" }, "4", queueBadge),
    navButton("nav-settings", "Settings", { kind: "settings" }, "5"),
    search,
  ),
  banner,
  main,
  status,
  dropOverlay,
);

function say(message: string, error = false) {
  status.textContent = message;
  status.className = error ? "error" : "";
}

async function attempt<T>(what: string, p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    say(`${what}: ${String(e)}`, true);
    return undefined;
  }
}

// ---------- navigation ----------

function go(screen: Screen) {
  state.history.push(screen);
  void render();
}
function back() {
  if (state.history.canBack) {
    state.history.back();
    void render();
  }
}
function forward() {
  if (state.history.canForward) {
    state.history.forward();
    void render();
  }
}

async function render() {
  const screen = state.history.current ?? { kind: "library" };
  backBtn.disabled = !state.history.canBack;
  fwdBtn.disabled = !state.history.canForward;
  for (const b of document.querySelectorAll("header .nav")) b.classList.remove("active");
  const navId = { library: "nav-library", ask: "nav-ask", page: "nav-library", wanted: "nav-library", sources: "nav-sources", source: "nav-sources", add: "nav-add", queue: "nav-queue", settings: "nav-settings", welcome: "" }[screen.kind];
  if (navId) document.getElementById(navId)?.classList.add("active");
  document.body.dataset.screen = screen.kind;
  switch (screen.kind) {
    case "library":
      return renderLibrary();
    case "ask":
      return renderAsk();
    case "page":
      return renderPage(screen.id, screen.quote);
    case "sources":
      return renderSourcesScreen();
    case "source":
      return renderSource(screen.id);
    case "wanted":
      return renderWanted(screen.title);
    case "add":
      return renderAdd();
    case "queue":
      return renderQueue();
    case "settings":
      return renderSettings();
    case "welcome":
      return renderWelcome();
  }
}

// ---------- library ----------

let listEl: HTMLElement | null = null;

async function loadLibrary() {
  const lib = await attempt("Loading the library", commands.library(state.sort));
  if (lib) state.library = lib;
}

/** The library's pages of one kind: topics in the list, saved answers apart. */
function entriesOf(kind: LibraryEntry["kind"]): LibraryEntry[] {
  return (state.library?.entries ?? []).filter((e) => e.kind === kind);
}

function currentRows(): { id: number; entry?: LibraryEntry; hit?: SearchResult }[] {
  if (state.hits) return state.hits.map((hit) => ({ id: hit.page_id, hit }));
  return entriesOf("topic").map((entry) => ({ id: entry.id, entry }));
}

/** A page's mark when it is flagged: a topic's refused rewrite, an answer's ungrounded claims. */
function flagMark(flagged: string | null): HTMLElement | null {
  return flagged ? h("span", { class: "flag-mark", title: flagged }, "marked") : null;
}

/** Saved answers, listed apart from the topics (newest-written order as the library's). */
function answersList(): HTMLElement | null {
  const answers = entriesOf("answer");
  if (!answers.length || state.hits) return null;
  return h(
    "details",
    { id: "answers-list", class: "answers-list", open: true },
    h("summary", {}, `Saved answers (${answers.length})`),
    h(
      "ul",
      {},
      ...answers.map((a) =>
        h(
          "li",
          { class: "answer-row", "data-id": a.id, "data-flagged": a.flagged !== null },
          h("span", { class: "kind-badge answer" }, "answer"),
          h("a", { href: "#", class: "answer-title", onclick: (e) => (e.preventDefault(), go({ kind: "page", id: a.id })) }, a.title),
          flagMark(a.flagged),
          h("div", { class: "lib-summary" }, plainLinks(a.summary)),
        ),
      ),
    ),
  );
}

async function renderLibrary() {
  if (!state.library) await loadLibrary();
  const lib = state.library;
  const counts = lib?.counts ?? { sources: 0, pages: 0, answers: 0, wanted: 0 };
  const sortSel = h(
    "select",
    {
      id: "sort",
      "aria-label": "Sort",
      onchange: async (e) => {
        state.sort = (e.target as HTMLSelectElement).value as LibrarySort;
        await loadLibrary();
        void renderLibrary();
      },
    },
    h("option", { value: "title", selected: state.sort === "title" }, "Title A–Z"),
    h("option", { value: "updated", selected: state.sort === "updated" }, "Recently written"),
  );
  listEl = h("div", { id: "library-list", class: "vlist", role: "listbox", tabindex: "0", "aria-label": "Pages" });
  const wanted = lib?.wanted ?? [];
  replace(
    main,
    h(
      "section",
      { class: "library" },
      h(
        "div",
        { class: "toolbar" },
        h(
          "span",
          { id: "counts", class: "counts" },
          `${counts.pages} pages · ${counts.answers ? `${counts.answers} saved answer${counts.answers === 1 ? "" : "s"} · ` : ""}${counts.sources} sources · ${counts.wanted} wanted pages`,
        ),
        h("span", { class: "spacer" }),
        state.hits ? h("span", { class: "muted" }, `${state.hits.length} matches for “${state.query}”`) : sortSel,
      ),
      counts.pages === 0 && !state.hits
        ? h(
            "div",
            { class: "empty" },
            h("h2", {}, "Your wiki is empty"),
            h("p", {}, "Add notes, markdown files, folders or web pages, then compile them into pages."),
            h("button", { class: "primary", onclick: () => go({ kind: "add" }) }, "Add sources"),
          )
        : listEl,
      answersList(),
      wanted.length && !state.hits
        ? h(
            "details",
            { class: "wanted-list" },
            h("summary", {}, `Wanted pages (${wanted.length})`),
            h(
              "ul",
              {},
              ...wanted.slice(0, 200).map((w) =>
                h(
                  "li",
                  {},
                  h("a", { href: "#", class: "wanted", onclick: (e) => (e.preventDefault(), go({ kind: "wanted", title: w.title })) }, w.title),
                  ` — ${w.mentions} mention${w.mentions === 1 ? "" : "s"}`,
                ),
              ),
            ),
          )
        : null,
    ),
  );
  if (counts.pages > 0 || state.hits) mountList();
}

function mountList() {
  const el = listEl;
  if (!el) return;
  const rows = currentRows();
  state.selected = Math.min(state.selected, Math.max(0, rows.length - 1));
  const spacer = h("div", { class: "vspacer" });
  spacer.style.height = `${rows.length * ROW}px`;
  el.replaceChildren(spacer);
  const paint = () => {
    const { start, end } = visibleRange(el.scrollTop, el.clientHeight || 600, ROW, rows.length);
    const frag = document.createDocumentFragment();
    for (let i = start; i < end; i++) frag.append(rowElement(rows[i], i));
    spacer.replaceChildren(frag);
  };
  el.onscroll = () => requestAnimationFrame(paint);
  paint();
  (el as HTMLElement & { repaint?: () => void }).repaint = paint;
}

function rowElement(row: ReturnType<typeof currentRows>[number], i: number): HTMLElement {
  const el = h("div", {
    class: `lib-row${i === state.selected ? " selected" : ""}`,
    role: "option",
    "data-id": row.id,
    "aria-selected": i === state.selected ? "true" : "false",
    onclick: () => go({ kind: "page", id: row.id }),
  });
  el.style.transform = `translateY(${i * ROW}px)`;
  if (row.entry) {
    const e = row.entry;
    const mix = confidenceMix(e);
    const bar = h("span", { class: "mix", title: mix.label, "aria-label": mix.label });
    for (const k of ["sourced", "inferred", "opinion"] as const) {
      const seg = h("span", { class: k });
      seg.style.width = `${mix[k]}%`;
      bar.append(seg);
    }
    append(el, [
      h(
        "div",
        { class: "row-head" },
        h("span", { class: "lib-title" }, e.title),
        e.stale ? h("span", { class: "stale-mark", title: "Waits to be rewritten from all its sources" }, "stale") : null,
        flagMark(e.flagged),
        h("span", { class: "source-count" }, sourceCountLabel(e.source_count)),
        bar,
      ),
      h("div", { class: "lib-summary" }, plainLinks(e.summary)),
    ]);
  } else if (row.hit) {
    const snip = h("div", { class: "lib-summary" });
    for (const p of snippetParts(row.hit.snippet)) snip.append(p.mark ? h("mark", {}, p.text) : p.text);
    el.classList.add("search-hit");
    append(el, [h("div", { class: "row-head" }, h("span", { class: "lib-title" }, row.hit.title)), snip]);
  }
  return el;
}

function moveSelection(delta: number) {
  const rows = currentRows();
  if (!rows.length || !listEl) return;
  state.selected = Math.max(0, Math.min(rows.length - 1, state.selected + delta));
  const to = scrollToReveal(state.selected, listEl.scrollTop, listEl.clientHeight, ROW);
  if (to !== null) listEl.scrollTop = to;
  (listEl as HTMLElement & { repaint?: () => void }).repaint?.();
}

const runSearch = latestOnly((q: string) => commands.search(q));
let searchTimer: number | undefined;
search.addEventListener("input", () => {
  window.clearTimeout(searchTimer);
  searchTimer = window.setTimeout(async () => {
    const q = search.value.trim();
    state.query = q;
    state.selected = 0;
    if (!q) {
      // Clearing the search never takes a person anywhere: it only tidies the library
      // when that is what is on screen (a late timer must not undo a click elsewhere).
      state.hits = null;
      if (state.history.current?.kind === "library") void renderLibrary();
      return;
    }
    const hits = await runSearch(q).catch((e) => (say(`Search: ${String(e)}`, true), undefined));
    if (hits === undefined) return;
    state.hits = hits;
    if (state.history.current?.kind !== "library") go({ kind: "library" });
    else void renderLibrary();
  }, 40);
});

// ---------- page ----------

/** Follows a click inside rendered HTML (a page's or a digest's body). */
function followLinks(body: HTMLElement) {
  body.addEventListener("click", (e) => {
    const link = (e.target as Element).closest("a");
    if (!link) return;
    e.preventDefault();
    const what = linkClick(link);
    if (what.kind === "page") go({ kind: "page", id: what.id });
    else if (what.kind === "wanted") go({ kind: "wanted", title: what.title });
    else if (what.kind === "external") void attempt("Opening the link", openUrl(what.url));
  });
}

async function renderPage(id: number, quote?: string) {
  const p = await attempt("Opening the page", commands.page(id));
  if (!p) {
    replace(main, h("div", { class: "empty" }, h("h2", {}, "No such page"), h("p", {}, "It may have been removed.")));
    return;
  }
  const body = h("article", { id: "article-body", class: "prose" });
  setSafeHtml(body, p.html);
  followLinks(body);
  const sourcePane = h("div", { id: "source-pane", hidden: true });
  const stale = staleNotice(p.stale_reason, p.sources.length);
  const isAnswer = p.kind === "answer";
  const locate = (q: string) => commands.quote(p.id, q);
  const cited = quote ? citedQuoteNotice(quote) : null;
  replace(
    main,
    h(
      "div",
      { class: "article-layout" },
      h(
        "div",
        { class: "article-main" },
        isAnswer ? h("p", { id: "answer-kicker", class: "muted kicker" }, "Saved answer") : null,
        h("h1", { id: "article-title" }, p.title),
        p.aliases.length ? h("p", { id: "aliases", class: "muted" }, `Also: ${p.aliases.join(" · ")}`) : null,
        stale ? h("p", { id: "stale-notice", class: "notice" }, stale) : null,
        p.flagged
          ? h("p", { id: "flagged", class: "notice warn" }, isAnswer ? `Marked: ${p.flagged}.` : `The last rewrite was refused and this version kept: ${p.flagged}`)
          : null,
        cited?.el ?? null,
        // An answer's summary is its first lines: the body says it in full.
        isAnswer ? null : h("p", { class: "summary" }, plainLinks(p.summary)),
        p.truncated ? h("p", { class: "warn" }, "Written from an answer that was cut off: parts may be missing.") : null,
        body,
        isAnswer ? answerClaimsSection(p.claims) : claimsSection(p.claims, p.sources, locate, sourcePane),
        sourcePane,
        p.open_questions.length && isAnswer
          ? h("section", { id: "answer-followups" }, h("h2", {}, "Ask next"), h("div", { class: "buttons" }, ...p.open_questions.map((q) => h("button", { class: "follow-up", onclick: () => void ask(q) }, q))))
          : null,
        p.open_questions.length && !isAnswer
          ? h("section", {}, h("h2", {}, "Open questions"), h("ul", {}, ...p.open_questions.map((q) => h("li", {}, q))))
          : null,
        historySection(p),
      ),
      h(
        "aside",
        { class: "article-side" },
        isAnswer ? citesSection(p) : null,
        isAnswer
          ? null
          : h(
          "section",
          { id: "sources" },
          h("h2", {}, `Sources (${p.sources.length})`),
          h(
            "ol",
            { class: "page-sources" },
            ...p.sources.map((s) =>
              h(
                "li",
                { class: "source-meta", "data-source": s.source_id },
                h("a", { href: "#", class: "digest-link", onclick: (e) => (e.preventDefault(), go({ kind: "source", id: s.source_id })) }, s.title),
                h("div", { class: "origin muted", title: originLabel(s.origin).full }, originLabel(s.origin).label),
                finalUrlLine(s.origin, s.final_url),
                h("div", { class: "muted compiled-by" }, `${shortTime(s.compiled_at)} · ${s.provider} · ${s.model}`),
                h("button", { class: "link", onclick: () => recompileDialog(s.source_id) }, "Recompile with another model…"),
              ),
            ),
          ),
        ),
        h(
          "section",
          { id: "backlinks" },
          h("h2", {}, `Linked from (${p.backlinks.length})`),
          p.backlinks.length
            ? h(
                "ul",
                {},
                ...p.backlinks.map((b) =>
                  h(
                    "li",
                    { class: "backlink" },
                    h("a", { href: "#", onclick: (e) => (e.preventDefault(), go({ kind: "page", id: b.page_id })) }, b.title),
                    h("div", { class: "context" }, b.context),
                  ),
                ),
              )
            : h("p", { class: "muted" }, "No page links here yet."),
        ),
        p.concepts.length
          ? h("section", {}, h("h2", {}, "Concepts"), h("div", { class: "chips" }, ...p.concepts.map((c) => h("span", { class: "chip" }, c))))
          : null,
      ),
    ),
  );
  main.focus();
  if (quote && cited) {
    const found = markCitedQuote(quote);
    cited.found(found !== null, p.sources.length > 0, () => showQuote(quote, locate, sourcePane));
    if (found) found.scrollIntoView({ block: "center" });
    else if (p.sources.length) await showQuote(quote, locate, sourcePane);
  }
}

/** The notice over a page opened from an answer's citation: the quote, and where it was
 * found (marked on the page, or shown in the page's source). */
function citedQuoteNotice(quote: string): {
  el: HTMLElement;
  found: (onPage: boolean, hasSources: boolean, inSource: () => void) => void;
} {
  const where = h("span", { id: "cited-where", class: "muted" });
  const actions = h("span", {});
  const el = h(
    "div",
    { id: "cited-quote", class: "notice cited" },
    h("strong", {}, "Quoted by an answer"),
    h("blockquote", {}, quote),
    h("div", { class: "inline" }, where, actions),
  );
  return {
    el,
    found: (onPage, hasSources, inSource) => {
      where.textContent = onPage
        ? "Marked on this page below."
        : hasSources
          ? "Not in this page's text: looked for in its sources, below."
          : "Found neither on this page nor in its sources.";
      replace(actions, hasSources ? h("button", { id: "cited-in-source", class: "link", onclick: inSource }, "Show it in the source") : null);
    },
  };
}

/** Marks `quote` where a person reads it on the open page: its body, else its claims.
 * Returns the first mark, or null when the page's text does not hold it. The claim whose
 * quote it is gets marked too. */
function markCitedQuote(quote: string): HTMLElement | null {
  for (const li of document.querySelectorAll<HTMLElement>("#claims .claim[data-quote]")) {
    if (sameQuote(li.dataset.quote ?? "", quote)) li.classList.add("cited");
  }
  for (const sel of ["#article-body", "#claims"]) {
    const root = document.querySelector(sel);
    if (!root) continue;
    const nodes: Text[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
    const spans = quoteSpans(
      nodes.map((n) => n.data),
      quote,
    );
    if (!spans) continue;
    let first: HTMLElement | null = null;
    for (const span of spans) {
      const node = nodes[span.piece];
      if (!node.data.slice(span.start, span.end).trim()) continue; // white space between blocks
      const range = document.createRange();
      range.setStart(node, span.start);
      range.setEnd(node, span.end);
      const mark = h("mark", { class: "cited-quote" });
      range.surroundContents(mark);
      first ??= mark;
    }
    if (first) {
      first.id = "cited-quote-mark";
      return first;
    }
  }
  return null;
}

/** An answer page's claims: each with the page it cites, opened at the quote. */
function answerClaimsSection(claims: ClaimView[]): HTMLElement | null {
  if (!claims.length) return null;
  return h(
    "section",
    { id: "claims" },
    h("h2", {}, `Claims (${claims.length})`),
    h(
      "ul",
      { class: "claims" },
      ...claims.map((c) =>
        citedClaimItem({
          claim: c.claim,
          confidence: c.confidence,
          quote: c.quote,
          grounded: c.grounded,
          quote_not_found: !!c.quote?.trim() && !c.grounded,
          page: c.cited_page ?? { title: "", page_id: null },
        }),
      ),
    ),
  );
}

/** The pages an answer page cites, each once. */
function citesSection(p: PageView): HTMLElement {
  const cited = new Map<string, PageNameView>();
  for (const c of p.claims) if (c.cited_page) cited.set(c.cited_page.title, c.cited_page);
  for (const l of p.links) if (l.page_id !== null && !cited.has(l.target)) cited.set(l.target, { title: l.target, page_id: l.page_id });
  const pages = [...cited.values()];
  return h(
    "section",
    { id: "cites" },
    h("h2", {}, `Cites (${pages.length})`),
    pages.length ? h("ul", {}, ...pages.map((c) => h("li", {}, pageNameLink(c)))) : h("p", { class: "muted" }, "No page."),
  );
}

/** A link to a page by name: to the page when it exists, else to the wanted page. */
function pageNameLink(p: PageNameView, quote?: string | null, cls = "page-link"): HTMLElement {
  return h(
    "a",
    {
      href: "#",
      class: p.page_id === null ? `${cls} wanted` : cls,
      onclick: (e) => {
        e.preventDefault();
        if (p.page_id !== null) go({ kind: "page", id: p.page_id, quote: quote?.trim() ? quote : undefined });
        else go({ kind: "wanted", title: p.title });
      },
    },
    p.title,
  );
}

/** A page's versions, newest first, each comparable with the current one. */
function historySection(p: PageView): HTMLElement {
  const diffPane = h("div", { id: "diff-pane", hidden: true });
  const compare = async (v: PageVersionView) => {
    const [older, now] = await Promise.all([
      attempt("Reading the version", commands.page_text(p.id, v.version)),
      attempt("Reading the page", commands.page_text(p.id, p.version)),
    ]);
    if (!older || !now) return;
    const text = (t: PageTextView) => [`# ${t.title}`, "", t.summary, "", t.body, "", ...t.claims.map((c) => `- ${c}`)].join("\n");
    const lines = lineDiff(text(older), text(now));
    const changed = lines.some((l) => l.op !== "same");
    const pre = h("pre", { class: "diff" });
    for (const l of lines) pre.append(h("span", { class: `diff-${l.op}` }, `${l.op === "add" ? "+ " : l.op === "del" ? "− " : "  "}${l.text}\n`));
    replace(
      diffPane,
      h("div", { class: "pane-head" }, h("strong", {}, `Version ${v.version} → current (${p.version})`), h("button", { class: "link", onclick: () => (diffPane.hidden = true) }, "Close")),
      changed ? pre : h("p", { class: "muted" }, "No difference."),
    );
    diffPane.hidden = false;
    diffPane.scrollIntoView({ block: "nearest" });
  };
  // A restore adds a version (by you); nothing in between is lost, so it needs no confirm.
  const restore = async (v: PageVersionView) => {
    const now = await attempt("Restoring", commands.restore_page_version(p.id, v.version));
    if (!now) return;
    state.library = null;
    say(`Restored version ${v.version} of “${now.title}” as version ${now.version}`);
    void render();
  };
  const author = (v: PageVersionView) =>
    v.author === "person"
      ? v.restored_from !== null
        ? `you (restored version ${v.restored_from})`
        : "you"
      : `${v.provider ?? "model"} · ${v.model ?? ""}`;
  return h(
    "section",
    { id: "history" },
    h("h2", {}, `History (${p.history.length})`),
    h(
      "ul",
      { class: "history" },
      ...[...p.history].reverse().map((v) =>
        h(
          "li",
          { class: "version", "data-version": v.version },
          h("strong", {}, `v${v.version}`),
          ` · ${shortTime(v.created_at)} · ${author(v)}`,
          v.version === p.version ? h("span", { class: "muted" }, " (current)") : h("button", { class: "link compare", onclick: () => compare(v) }, "Compare with current"),
          v.version === p.version ? null : h("button", { class: "link restore", onclick: () => restore(v) }, "Restore"),
        ),
      ),
    ),
    diffPane,
  );
}

function claimsSection(
  claims: ClaimView[],
  sources: Pick<PageSourceView, "source_id" | "origin" | "title">[],
  locate: (quote: string) => Promise<QuoteView | null>,
  pane: HTMLElement,
): HTMLElement | null {
  if (!claims.length) return null;
  return h(
    "section",
    { id: "claims" },
    h("h2", {}, "Key claims"),
    h(
      "ul",
      { class: "claims" },
      ...claims.map((c) =>
        h(
          "li",
          { class: "claim", "data-quote": c.quote ?? undefined },
          h("span", { class: `badge-conf ${c.confidence}`, title: c.grounded ? "quote found in the source" : "" }, c.confidence),
          " ",
          c.quote
            ? h("button", { class: "link claim-text", title: "Show the quote in the source", onclick: () => c.quote && showQuote(c.quote, locate, pane) }, c.claim)
            : h("span", {}, c.claim),
          ...claimBadges(c.source_ids, sources).map((b) =>
            h("span", { class: "source-badge", title: `Source ${b.number}: ${b.label}`, "data-source": b.sourceId }, `${b.number} · ${b.label}`),
          ),
          c.quote && !c.grounded ? h("span", { class: "muted" }, " (quote not found in the source)") : null,
        ),
      ),
    ),
  );
}

async function showQuote(quote: string, locate: (quote: string) => Promise<QuoteView | null>, pane: HTMLElement) {
  // The core finds the quote by the rule that grounded it, in whichever source holds it.
  const q = await attempt("Finding the quote", locate(quote));
  if (!q) return;
  const pre = h("pre", { class: "source-text" });
  append(pre, [
    q.more_before ? "…" : "",
    q.before,
    q.found ? h("mark", { id: "quote-mark" }, q.quote) : null,
    q.after,
    q.more_after ? "…" : "",
  ]);
  replace(
    pane,
    h("div", { class: "pane-head" }, h("strong", {}, "Quote in the source"), h("span", { class: "muted" }, ` ${originLabel(q.origin).label}`), h("button", { class: "link", onclick: () => (pane.hidden = true) }, "Close")),
    h("blockquote", {}, quote),
    q.found ? null : h("p", { class: "warn" }, "This quote does not appear in the source."),
    pre,
  );
  pane.hidden = false;
  document.getElementById("quote-mark")?.scrollIntoView({ block: "center" });
}

async function recompileDialog(sourceId: number) {
  const models = state.models.length ? state.models : await loadModels();
  const sel = h("select", { id: "recompile-model" }, ...models.map((m) => h("option", { value: m }, m)));
  const input = h("input", { placeholder: "or type a model name", id: "recompile-model-text" });
  const dialog = h(
    "dialog",
    { class: "modal" },
    h("h2", {}, "Recompile with another model"),
    models.length ? sel : null,
    input,
    h(
      "div",
      { class: "buttons" },
      h("button", { onclick: () => dialog.close() }, "Cancel"),
      h(
        "button",
        {
          class: "primary",
          onclick: async () => {
            const model = input.value.trim() || sel.value;
            dialog.close();
            if (!model) return;
            await attempt("Queueing", commands.compile([sourceId], model));
            say(`Recompiling with ${model}…`);
            go({ kind: "queue" });
          },
        },
        "Recompile",
      ),
    ),
  );
  document.body.append(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  dialog.showModal();
}

async function loadModels(): Promise<string[]> {
  const s = state.settings ?? (await attempt("Reading settings", commands.settings()));
  if (!s) return [];
  state.settings = s;
  const check = await attempt("Listing models", commands.check_connection(s.provider));
  state.models = check?.models ?? [];
  return state.models;
}

async function renderWanted(title: string) {
  replace(
    main,
    h(
      "section",
      { class: "narrow" },
      h("h1", {}, title),
      h("p", { class: "wanted-note" }, "No page has this name yet: it is a wanted page."),
      h("p", {}, "WikiMind can write it from what the sources that link here say about it."),
      h(
        "button",
        {
          class: "primary",
          id: "create-wanted",
          onclick: async () => {
            const r = await attempt("Creating the page", commands.create_wanted(title));
            if (r) reportIngest(r, true);
          },
        },
        "Create this page from its mentions",
      ),
    ),
  );
}

// ---------- ask ----------

/** One claim of an answer: its confidence, whether its quote was found in the page it
 * cites (a clear mark when not: it is then shown as inferred), the quote, and the cited
 * page, opened at the quote. */
function citedClaimItem(c: {
  claim: string;
  confidence: ClaimView["confidence"];
  quote: string | null;
  grounded: boolean;
  quote_not_found: boolean;
  page: PageNameView;
}): HTMLElement {
  const mark = citationMark(c, c.page.title || "the cited page");
  const open = () => {
    if (c.page.page_id !== null) go({ kind: "page", id: c.page.page_id, quote: c.quote?.trim() ? c.quote : undefined });
    else if (c.page.title) go({ kind: "wanted", title: c.page.title });
  };
  return h(
    "li",
    { class: `claim cited-claim ${mark.kind}`, "data-quote": c.quote ?? undefined, "data-grounded": String(c.grounded), "data-confidence": c.confidence },
    h(
      "div",
      { class: "claim-head" },
      h("span", { class: `badge-conf ${c.confidence}` }, c.confidence),
      mark.mark ? h("span", { class: `citation-mark ${mark.kind}`, title: mark.label }, `${mark.mark} ${mark.label}`) : null,
    ),
    h("button", { class: "link claim-text", title: c.page.title ? `Open ${c.page.title} at the quote` : "", onclick: open }, c.claim),
    c.quote ? h("blockquote", { class: "claim-quote" }, c.quote) : null,
    c.page.title ? h("div", { class: "cites muted" }, "Cites ", pageNameLink(c.page, c.quote, "cited-page")) : null,
  );
}

let askEls: {
  input: HTMLTextAreaElement;
  askBtn: HTMLButtonElement;
  stopBtn: HTMLButtonElement;
  progress: HTMLElement;
  stream: HTMLElement;
  result: HTMLElement;
} | null = null;

function renderAsk() {
  const input = h("textarea", { id: "ask-input", rows: "2", placeholder: "Ask a question about your wiki…", "aria-label": "Question", spellcheck: "true" });
  input.value = state.ask.question;
  // Enter asks; Shift+Enter starts a new line.
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      void ask(input.value);
    }
  });
  askEls = {
    input,
    askBtn: h("button", { id: "ask-btn", class: "primary", onclick: () => void ask(input.value) }, "Ask"),
    stopBtn: h("button", { id: "ask-stop", onclick: () => void stopAsking() }, "Stop"),
    progress: h("div", { id: "ask-progress", class: "muted", role: "status", "aria-live": "polite" }),
    stream: h("div", { id: "ask-stream", class: "streaming" }),
    result: h("div", { id: "ask-result" }),
  };
  replace(
    main,
    h(
      "section",
      { class: "narrow ask" },
      h("h1", {}, "Ask the wiki"),
      h("p", { class: "muted" }, "Answered from your pages only: every claim cites the page it comes from, and its quote is checked there."),
      h("div", { class: "ask-box" }, input, h("div", { class: "buttons" }, askEls.askBtn, askEls.stopBtn)),
      askEls.progress,
      askEls.stream,
      askEls.result,
    ),
  );
  paintAsk();
  if (!state.ask.answer) input.focus();
}

async function ask(question: string) {
  const q = question.trim();
  if (!q) {
    say("Type a question first.");
    return;
  }
  const seq = ++state.ask.seq;
  state.ask = { ...state.ask, question: q, running: true, stopped: false, progress: null, answer: null, failure: null, seq };
  if (state.history.current?.kind === "ask") {
    // A follow-up question asked with a click shows in the box, as if typed.
    if (askEls) askEls.input.value = q;
    paintAsk();
  } else go({ kind: "ask" });
  let answer: AnswerView | null = null;
  let failure: string | null = null;
  try {
    answer = await commands.ask(q, false);
  } catch (e) {
    failure = String(e);
  }
  if (seq !== state.ask.seq) return; // another question was asked meanwhile
  state.ask = { ...state.ask, running: false, answer, failure };
  if (answer?.error) say(`No valid answer: ${answer.error}`, true);
  else if (answer) say(answer.covered ? "Answered" : "The wiki does not cover this question");
  paintAsk();
}

async function stopAsking() {
  state.ask.stopped = true;
  await attempt("Stopping", commands.cancel_ask());
}

async function saveAnswer() {
  const v = await attempt("Saving the answer", commands.save_answer(state.ask.question));
  if (!v) return;
  state.ask.answer = v;
  state.library = null;
  if (v.saved) say(`Saved as the page “${v.saved.title}”`);
  paintAsk();
}

/** Paints the streaming part of the Ask screen: the stage and the answer's text so far
 * (as text: it is the model's, not yet checked or rendered). */
function paintAskStream() {
  if (!askEls?.result.isConnected) return;
  const { running, progress } = state.ask;
  askEls.askBtn.disabled = running;
  askEls.stopBtn.hidden = !running;
  askEls.progress.hidden = !running;
  askEls.progress.textContent = running ? (progress ? askStageLabel(progress) : "Looking for pages…") : "";
  const text = running ? (progress?.text ?? "") : "";
  askEls.stream.textContent = text;
  askEls.stream.hidden = !text;
}

let askPaintQueued = false;
function scheduleAskPaint() {
  if (askPaintQueued) return;
  askPaintQueued = true;
  requestAnimationFrame(() => {
    askPaintQueued = false;
    paintAskStream();
  });
}

function paintAsk() {
  if (!askEls?.result.isConnected) return;
  paintAskStream();
  const { answer, failure, running, stopped } = state.ask;
  if (running) return replace(askEls.result);
  if (failure !== null) {
    return replace(
      askEls.result,
      stopped
        ? h("p", { id: "ask-stopped", class: "notice" }, "Stopped before the answer was complete.")
        : h("p", { id: "ask-failed", class: "notice error" }, `The question could not be answered: ${failure}`),
    );
  }
  if (!answer) return replace(askEls.result);
  replace(askEls.result, answerSection(answer));
}

/** An answer as the Ask screen shows it. */
function answerSection(v: AnswerView): HTMLElement {
  const meta = [v.provider, v.calls ? `${v.calls} call${v.calls === 1 ? "" : "s"}` : "", v.tokens_out ? `${v.tokens_out} tokens` : ""].filter(Boolean).join(" · ");
  if (!v.covered) {
    const said = h("div", { class: "prose" });
    setSafeHtml(said, v.html);
    return h(
      "div",
      { id: "ask-not-covered", class: "notice" },
      h("strong", {}, "Your wiki does not cover this question."),
      said,
      h("p", { class: "muted" }, "No model was asked. Add sources about it and compile them, or ask about a topic your pages cover."),
      h("button", { onclick: () => go({ kind: "add" }) }, "Add sources"),
    );
  }
  if (v.error !== null) {
    return h(
      "div",
      { id: "ask-error", class: "notice error" },
      h("strong", {}, "No valid answer could be made."),
      h("p", { id: "ask-error-reason" }, v.error),
      meta ? h("p", { class: "muted" }, meta) : null,
      ...v.warnings.map((w) => h("p", { class: "muted warning" }, w)),
      h("button", { onclick: () => void ask(v.question) }, "Ask again"),
    );
  }
  const body = h("article", { id: "ask-answer", class: "prose" });
  setSafeHtml(body, v.html);
  followLinks(body);
  const notFound = v.claims.filter((c) => c.quote_not_found).length;
  return h(
    "div",
    { class: "answer" },
    body,
    h(
      "div",
      { class: "buttons save-row" },
      v.can_save ? h("button", { id: "ask-save", class: "primary", onclick: () => void saveAnswer() }, "Save as a page") : null,
      v.saved ? h("span", { id: "ask-saved", class: "ok" }, "✓ Saved as the page ", pageNameLink(v.saved)) : null,
      h("span", { class: "spacer" }),
      meta ? h("span", { class: "muted", id: "ask-meta" }, meta) : null,
    ),
    v.claims.length
      ? h(
          "section",
          { id: "ask-claims" },
          h("h2", {}, `Claims (${v.claims.length})`, notFound ? h("span", { class: "warn count-note" }, ` · ${notFound} quote${notFound === 1 ? "" : "s"} not found`) : null),
          h("ul", { class: "claims" }, ...v.claims.map((c) => citedClaimItem(c))),
        )
      : h("p", { class: "muted" }, "The answer makes no claim citing a page."),
    v.follow_up_questions.length
      ? h(
          "section",
          { id: "ask-followups" },
          h("h2", {}, "Ask next"),
          h("div", { class: "buttons" }, ...v.follow_up_questions.map((q) => h("button", { class: "follow-up", onclick: () => void ask(q) }, q))),
        )
      : null,
    v.pages_read.length
      ? h(
          "section",
          { id: "ask-read" },
          h("h2", {}, `Pages read (${v.pages_read.length})`),
          h("div", { class: "chips" }, ...v.pages_read.map((p) => h("span", { class: "chip read-page" }, pageNameLink(p)))),
        )
      : null,
    ...v.warnings.map((w) => h("p", { class: "muted warning" }, `Note: ${w}`)),
  );
}

// ---------- sources and their digests ----------

async function renderSourcesScreen() {
  const list = await attempt("Listing sources", commands.sources());
  if (!list) return;
  replace(
    main,
    h(
      "section",
      { class: "sources-screen" },
      h("div", { class: "toolbar" }, h("h2", {}, `Sources (${list.length})`), h("span", { class: "spacer" }), h("button", { onclick: () => go({ kind: "add" }) }, "Add sources")),
      list.length
        ? h(
            "ul",
            { id: "sources-list", class: "source-cards" },
            ...list.map((s) =>
              h(
                "li",
                {
                  class: "source-card",
                  "data-id": s.id,
                  "data-status": s.status,
                  role: "link",
                  tabindex: "0",
                  onclick: () => go({ kind: "source", id: s.id }),
                  onkeydown: (e) => (e as KeyboardEvent).key === "Enter" && go({ kind: "source", id: s.id }),
                },
                h("div", { class: "row-head" }, h("span", { class: "lib-title" }, s.article_title ?? s.title ?? originLabel(s.origin).label), h("span", { class: `status ${s.status}` }, s.status)),
                h("div", { class: "muted origin", title: s.origin }, originLabel(s.origin).label),
                s.pages.length ? h("div", { class: "muted" }, `Feeds ${s.pages.map((p) => p.title).join(", ")}`) : null,
              ),
            ),
          )
        : h("p", { class: "muted" }, "No sources yet."),
    ),
  );
}

async function renderSource(id: number) {
  const d = await attempt("Opening the source", commands.source(id));
  if (!d) {
    replace(main, h("div", { class: "empty" }, h("h2", {}, "No such source"), h("p", {}, "It may have been removed.")));
    return;
  }
  const s = d.source;
  const g = d.digest;
  const pane = h("div", { id: "source-pane", hidden: true });
  const body = h("article", { id: "digest-body", class: "prose" });
  if (g) {
    setSafeHtml(body, g.html);
    followLinks(body);
  }
  const self = [{ source_id: s.id, origin: s.origin, title: g?.title ?? s.title ?? "" }];
  replace(
    main,
    h(
      "div",
      { class: "article-layout" },
      h(
        "div",
        { class: "article-main" },
        h("p", { class: "muted kicker" }, "Digest of one source"),
        h("h1", { id: "digest-title" }, g?.title ?? s.title ?? originLabel(s.origin).label),
        g ? h("p", { class: "summary" }, g.summary) : h("p", { class: "muted" }, s.status === "failed" ? `Not compiled: ${s.reason ?? "the last compile failed"}` : "Not compiled yet."),
        g?.truncated ? h("p", { class: "warn" }, "Written from an answer that was cut off: parts may be missing.") : null,
        g ? body : null,
        g ? claimsSection(g.claims, self, (q) => commands.digest_quote(s.id, q), pane) : null,
        pane,
        g && g.open_questions.length ? h("section", {}, h("h2", {}, "Open questions"), h("ul", {}, ...g.open_questions.map((q) => h("li", {}, q)))) : null,
      ),
      h(
        "aside",
        { class: "article-side" },
        h(
          "section",
          { id: "source-pages" },
          h("h2", {}, `Feeds (${s.pages.length})`),
          s.pages.length
            ? h(
                "ul",
                {},
                ...s.pages.map((p) =>
                  h(
                    "li",
                    { class: "fed-page" },
                    h("a", { href: "#", onclick: (e) => (e.preventDefault(), go({ kind: "page", id: p.id })) }, p.title),
                    h("span", { class: "muted" }, ` · ${sourceCountLabel(p.source_count)}${p.stale ? " · waits for a rewrite" : ""}`),
                  ),
                ),
              )
            : h("p", { class: "muted" }, "No page yet."),
        ),
        h(
          "section",
          { id: "source-origin" },
          h("h2", {}, "Source"),
          h("div", { class: "origin", title: s.origin }, s.origin.startsWith("text:") ? "Pasted text" : s.origin),
          finalUrlLine(s.origin, s.final_url),
          g ? h("div", { class: "muted compiled-by" }, `${shortTime(g.compiled_at)} · ${g.provider} · ${g.model}`) : null,
          h("button", { class: "link", onclick: () => recompileDialog(s.id) }, "Recompile with another model…"),
        ),
        g && g.concepts.length ? h("section", {}, h("h2", {}, "Concepts"), h("div", { class: "chips" }, ...g.concepts.map((c) => h("span", { class: "chip" }, c)))) : null,
      ),
    ),
  );
  main.focus();
}

// ---------- add sources ----------

function reportIngest(r: IngestView, queued = false) {
  const parts = [`${r.added.length} source${r.added.length === 1 ? "" : "s"} stored`];
  if (queued) parts.push("compiling");
  if (r.skipped.length) parts.push(`${r.skipped.length} skipped`);
  if (r.errors.length) parts.push(`problems: ${r.errors.join("; ")}`);
  say(parts.join(" · "), r.errors.length > 0 && r.added.length === 0);
  state.library = null;
  if (state.history.current?.kind === "add") void renderSources();
}

async function addPaths(paths: string[]) {
  say(`Reading ${paths.length} item${paths.length === 1 ? "" : "s"}…`);
  const r = await attempt("Adding", commands.add_paths(paths));
  if (r) reportIngest(r);
}

let sourcesEl: HTMLElement | null = null;

async function renderAdd() {
  const text = h("textarea", { id: "paste-text", rows: "7", placeholder: "Paste a note (markdown is fine). [[Wiki links]] to other notes are kept." });
  const title = h("input", { id: "paste-title", placeholder: "Title (optional: else its first heading)" });
  const path = h("input", { id: "path-input", placeholder: "/path/to/notes or a file", spellcheck: "false" });
  const url = h("input", { id: "url-input", placeholder: "https://example.org/page", type: "url", spellcheck: "false" });
  sourcesEl = h("div", { id: "source-list" });
  replace(
    main,
    h(
      "section",
      { class: "add" },
      h(
        "div",
        { class: "add-grid" },
        h(
          "div",
          { class: "card" },
          h("h2", {}, "Paste text"),
          title,
          text,
          h(
            "button",
            {
              id: "add-text-btn",
              class: "primary",
              onclick: async () => {
                const r = await attempt("Adding the text", commands.add_text(text.value, title.value || null));
                if (r) {
                  reportIngest(r);
                  if (r.added.length) {
                    text.value = "";
                    title.value = "";
                  }
                }
              },
            },
            "Add text",
          ),
        ),
        h(
          "div",
          { class: "card" },
          h("h2", {}, "Files and folders"),
          h("p", { class: "muted" }, "Drop files or folders anywhere on the window, or pick them."),
          h(
            "div",
            { class: "buttons" },
            h("button", { id: "pick-files", onclick: () => pick(false) }, "Pick files…"),
            h("button", { id: "pick-folder", onclick: () => pick(true) }, "Pick a folder…"),
          ),
          h("div", { class: "inline" }, path, h("button", { id: "add-path-btn", onclick: () => path.value.trim() && addPaths([path.value.trim()]) }, "Add path")),
          h("h2", {}, "Web page"),
          h(
            "div",
            { class: "inline" },
            url,
            h(
              "button",
              {
                id: "add-url-btn",
                onclick: async () => {
                  if (!url.value.trim()) return;
                  say("Downloading…");
                  const r = await attempt("Downloading", commands.add_url(url.value));
                  if (r) reportIngest(r);
                },
              },
              "Add URL",
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "toolbar" },
        h("h2", {}, "Sources"),
        h("span", { class: "spacer" }),
        h(
          "button",
          {
            id: "compile-all",
            class: "primary",
            onclick: async () => {
              const n = await attempt("Compiling", commands.compile([], null));
              if (n !== undefined) say(n ? `${n} source${n === 1 ? "" : "s"} queued` : "Nothing to compile: every source is compiled.");
            },
          },
          "Compile pending",
        ),
      ),
      sourcesEl,
    ),
  );
  await renderSources();
}

async function pick(directory: boolean) {
  const picked = await attempt("Opening the picker", openDialog({ multiple: true, directory }));
  if (!picked) return;
  const paths = Array.isArray(picked) ? picked : [picked];
  if (paths.length) await addPaths(paths);
}

async function renderSources() {
  if (!sourcesEl) return;
  const list = await attempt("Listing sources", commands.sources());
  if (!list) return;
  if (!list.length) {
    replace(sourcesEl, h("p", { class: "muted" }, "No sources yet."));
    return;
  }
  replace(sourcesEl, h("table", { class: "sources" }, ...list.map(sourceRow)));
}

/** The line under a web page's origin saying where redirects led, as text (never HTML). */
function finalUrlLine(origin: string, finalUrl: string | null): HTMLElement | null {
  const label = finalUrlLabel(origin, finalUrl);
  return label ? h("div", { class: "muted final-url", title: label.slice(2) }, label) : null;
}

function sourceRow(s: SourceView): HTMLElement {
  const raw = h("td", { colspan: "4", class: "raw-cell" });
  const rawRow = h("tr", { hidden: true }, raw);
  const tr = h(
    "tr",
    { class: "source-row", "data-status": s.status, "data-id": s.id },
    h("td", {}, h("span", { class: `status ${s.status}` }, s.status)),
    h(
      "td",
      {},
      h("div", {}, s.title ?? originLabel(s.origin).label),
      // Files and pages by their full address; pasted text by what it is, not its hash.
      h("div", { class: "muted origin", title: s.origin }, s.origin.startsWith("text:") ? "Pasted text" : s.origin),
      finalUrlLine(s.origin, s.final_url),
      s.reason ? h("div", { class: "reason" }, s.reason) : null,
    ),
    h(
      "td",
      {},
      ...s.pages.map((p) => h("a", { href: "#", class: "fed-page", onclick: (e) => (e.preventDefault(), go({ kind: "page", id: p.id })) }, p.title)),
    ),
    h(
      "td",
      { class: "actions" },
      s.status === "failed" || s.status === "compiled"
        ? h(
            "button",
            {
              class: "link",
              onclick: async () => {
                if (!rawRow.hidden) return void (rawRow.hidden = true);
                const log = await attempt("Reading the compile log", commands.compilations(s.id));
                if (!log) return;
                replace(
                  raw,
                  ...(log.length ? log : []).map((c) =>
                    h(
                      "details",
                      { open: c === log[log.length - 1] },
                      h("summary", {}, `${c.created_at} · ${c.provider} ${c.model} · ${c.outcome}${c.reason ? ` — ${c.reason}` : ""}`),
                      h("pre", { class: "raw" }, c.raw_answer || "(no answer)"),
                    ),
                  ),
                  log.length ? null : h("p", { class: "muted" }, "No compile recorded."),
                );
                rawRow.hidden = false;
              },
            },
            "Raw answers",
          )
        : null,
      s.status !== "compiling"
        ? h("button", { class: "link", onclick: async () => (await attempt("Queueing", commands.compile([s.id], null))) && say("Queued") }, s.status === "compiled" ? "Recompile" : s.status === "failed" ? "Retry" : "Compile")
        : null,
      h(
        "button",
        {
          class: "link danger",
          onclick: async () => {
            if (await attempt("Removing", commands.remove_source(s.id))) {
              state.library = null;
              void renderSources();
            }
          },
        },
        "Remove",
      ),
    ),
  );
  const frag = h("tbody", {}, tr, rawRow);
  return frag;
}

// ---------- queue ----------

async function renderQueue() {
  state.jobs = (await attempt("Reading the queue", commands.jobs())) ?? state.jobs;
  const list = h("div", { id: "job-list" });
  replace(
    main,
    h(
      "section",
      { class: "queue" },
      h(
        "div",
        { class: "toolbar" },
        h("h2", {}, "Compile queue"),
        h("span", { class: "spacer" }),
        h("button", { id: "queue-compile-all", class: "primary", onclick: async () => void (await attempt("Compiling", commands.compile([], null))) }, "Compile pending"),
      ),
      list,
    ),
  );
  paintJobs();
}

/** How many jobs the Compile screen paints at once (the newest). */
const JOBS_SHOWN = 200;

function paintJobs() {
  const active = state.jobs.filter((j) => !isFinished(j.stage)).length;
  queueBadge.textContent = active ? String(active) : "";
  const list = document.getElementById("job-list");
  if (!list) return;
  if (!state.jobs.length) {
    replace(list, h("p", { class: "muted" }, "Nothing compiled since the app started. Add sources, then Compile."));
    return;
  }
  // The newest jobs; a queue of thousands is summed up, not painted node by node.
  const shown = state.jobs.slice(-JOBS_SHOWN).reverse();
  const hidden = state.jobs.length - shown.length;
  replace(
    list,
    ...shown
      .map((j) => {
        const finished = isFinished(j.stage);
        const page = j.kind === "page" ? j.page_id : null;
        const source = j.kind === "source" ? j.source_id : null;
        const cancel = () =>
          page !== null ? commands.cancel_page(page) : source !== null ? commands.cancel(source) : Promise.resolve(false);
        return h(
          "div",
          { class: `job ${j.kind} ${j.stage}`, "data-stage": j.stage, "data-kind": j.kind, "data-source": source ?? undefined, "data-page": page ?? undefined },
          h(
            "div",
            { class: "job-head" },
            h("span", { class: `job-kind ${j.kind}` }, j.kind === "page" ? "Page" : "Source"),
            h("strong", { class: "job-title" }, jobTitle(j)),
            h("span", { class: "spacer" }),
            h("span", { class: `stage ${j.stage}` }, stageLabel(j)),
          ),
          h("div", { class: "muted" }, jobFigures(j)),
          j.message ? h("div", { class: j.stage === "failed" ? "reason" : "muted" }, j.message) : null,
          finished ? null : h("progress", {}),
          h(
            "div",
            { class: "buttons" },
            finished ? null : h("button", { class: "job-cancel", onclick: () => void attempt("Cancelling", cancel()) }, "Cancel"),
            source !== null && (j.stage === "failed" || j.stage === "cancelled")
              ? h("button", { class: "job-retry", onclick: () => void attempt("Retrying", commands.compile([source], null)) }, "Retry")
              : null,
            source !== null && finished ? h("button", { class: "link", onclick: () => recompileDialog(source) }, "Recompile with another model…") : null,
            source !== null && j.article_id !== null ? h("button", { class: "link", onclick: () => go({ kind: "source", id: source }) }, "Open digest") : null,
            page !== null && finished ? h("button", { class: "link job-open-page", onclick: () => go({ kind: "page", id: page }) }, "Open page") : null,
          ),
        );
      }),
    hidden > 0 ? h("p", { class: "muted", id: "jobs-hidden" }, `and ${hidden} earlier job${hidden === 1 ? "" : "s"}`) : null,
  );
}

// ---------- settings and first run ----------

function providerFields(s: SettingsView, showHint = true): { el: HTMLElement; read: () => ProviderForm; models: HTMLElement } {
  const kind = h(
    "select",
    { id: "provider-kind" },
    h("option", { value: "ollama", selected: s.provider.kind === "ollama" }, "Ollama"),
    h("option", { value: "openai", selected: s.provider.kind === "openai" }, "OpenAI-compatible"),
    h("option", { value: "builtin", selected: s.provider.kind === "builtin" }, s.builtin.available ? "Built-in engine (no server)" : "Built-in engine (not in this build)"),
  );
  const base = h("input", { id: "base-url", value: s.provider.base_url, spellcheck: "false" });
  const model = h("input", { id: "model", value: s.provider.model, list: "model-list", spellcheck: "false" });
  const modelList = h("datalist", { id: "model-list" });
  const models = h("select", { id: "model-picker", hidden: true, onchange: (e) => (model.value = (e.target as HTMLSelectElement).value) });
  // The built-in engine runs a model file: the address field holds its path, picked here.
  const choose = h(
    "button",
    {
      id: "choose-model-file",
      type: "button",
      onclick: async () => {
        const picked = await attempt("Opening the picker", openDialog({ multiple: false, directory: false, filters: [{ name: "GGUF model", extensions: ["gguf"] }] }));
        if (typeof picked === "string") {
          base.value = picked;
          model.value = picked.split(/[\\/]/).pop() ?? picked;
        }
      },
    },
    "Choose…",
  );
  const baseLabel = h("span", {});
  const modelRow = h("label", {}, "Model", h("div", { class: "inline" }, model, models));
  const hint = h("p", { id: "builtin-hint", class: "muted" }, s.builtin.hint);
  const shape = () => {
    const builtin = kind.value === "builtin";
    baseLabel.textContent = builtin ? "Model file (.gguf)" : "Base URL";
    choose.hidden = !builtin;
    modelRow.hidden = builtin;
    // On the first-run screen the offer above already says it.
    hint.hidden = !builtin || !showHint;
  };
  kind.addEventListener("change", () => {
    const d = s.defaults.find((x) => x.kind === kind.value);
    if (d) {
      base.value = d.base_url;
      model.value = d.model;
    }
    shape();
  });
  shape();
  const read = (): ProviderForm => ({ kind: kind.value as ProviderForm["kind"], base_url: base.value, model: model.value });
  const el = h(
    "div",
    { class: "form" },
    h("label", {}, "Provider", kind),
    h("label", {}, baseLabel, h("div", { class: "inline" }, base, choose)),
    modelRow,
    hint,
    modelList,
  );
  return { el, read, models };
}

async function renderSettings() {
  const s = await attempt("Reading settings", commands.settings());
  if (!s) return;
  state.settings = s;
  const f = providerFields(s);
  const result = h("div", { id: "connection-result", role: "status" });
  const key = h("input", { id: "api-key", type: "password", placeholder: s.has_api_key ? "a key is set (type to replace)" : "API key (OpenAI-compatible servers that need one)", autocomplete: "off" });
  const test = async () => {
    replace(result, h("span", { class: "muted" }, "Testing…"));
    const c = await attempt("Testing", commands.check_connection(f.read()));
    if (!c) return;
    state.models = c.models;
    replace(result, h("span", { class: c.ok ? (c.model_available ? "ok" : "warn") : "error" }, c.ok ? "✓ " : "✗ ", c.message));
    replace(f.models, h("option", { value: "" }, "Pick a model…"), ...c.models.map((m) => h("option", { value: m, selected: m === f.read().model }, m)));
    f.models.hidden = c.models.length === 0;
  };
  replace(
    main,
    h(
      "section",
      { class: "narrow settings" },
      h("h1", {}, "Settings"),
      h("h2", {}, "Model server"),
      f.el,
      h(
        "div",
        { class: "buttons" },
        h("button", { id: "test-connection", onclick: test }, "Test connection"),
        h(
          "button",
          {
            id: "apply-provider",
            class: "primary",
            onclick: async () => {
              const next = await attempt("Saving", commands.apply_provider(f.read()));
              if (next) {
                state.settings = next;
                const o = await commands.opening().catch(() => null);
                if (o) showBanner(o.check);
                say(`Compiling with ${next.provider.kind}:${next.provider.model} at ${next.provider.base_url} (for this session; set it in ${next.config_file ?? "the config file"} to keep it)`);
              }
            },
          },
          "Use these settings",
        ),
      ),
      result,
      s.fallbacks.length ? h("p", { class: "muted" }, `Fallbacks (from the config file): ${s.fallbacks.join("; ")}`) : null,
      h("h2", {}, "API key"),
      h("p", { class: "muted" }, "Kept in the system keyring, never in a file. WIKIMIND_API_KEY also works."),
      h(
        "div",
        { class: "inline" },
        key,
        h(
          "button",
          {
            id: "save-key",
            onclick: async () => {
              if (!key.value.trim()) return;
              const next = await attempt("Saving the key", commands.save_api_key(f.read(), key.value));
              key.value = "";
              if (next) say("Key saved in the keyring.");
            },
          },
          "Save key",
        ),
      ),
      h("h2", {}, "Wiki"),
      h("p", {}, "Data directory: ", h("code", { id: "data-dir" }, s.data_dir)),
      h("p", { class: "muted" }, "Keys: / or Ctrl+K search · Alt+← / Alt+→ back and forward · Alt+1…6 screens · ↑/↓ or j/k move in lists · Enter opens."),
    ),
  );
  void test();
}

/** The first-run offer of the built-in engine: one click when a model file is at hand. */
function builtinOffer(s: SettingsView, result: HTMLElement): HTMLElement {
  const file = s.builtin.model_file;
  if (!s.builtin.available || !file) return h("p", { id: "builtin-offer", class: "muted" }, s.builtin.hint);
  const use = async () => {
    const form: ProviderForm = { kind: "builtin", base_url: file, model: file.split(/[\\/]/).pop() ?? file };
    const c = await attempt("Checking the model file", commands.check_connection(form));
    if (c?.ok) {
      const next = await attempt("Saving", commands.apply_provider(form));
      if (next) state.settings = next;
      showBanner(c);
      go({ kind: "library" });
      say(c.message);
    } else if (c) replace(result, c.message);
  };
  return h(
    "div",
    { id: "builtin-offer", class: "offer" },
    h("p", {}, "No server needed: WikiMind can run a model itself. ", s.builtin.hint),
    h("button", { id: "welcome-builtin", class: "primary", onclick: use }, "Use the built-in engine"),
  );
}

async function renderWelcome() {
  const s = state.settings ?? (await attempt("Reading settings", commands.settings()));
  if (!s) return;
  const f = providerFields(s, false);
  const result = h("div", { id: "welcome-result", class: "error" });
  replace(
    main,
    h(
      "section",
      { class: "narrow welcome", id: "welcome" },
      h("h1", {}, "Welcome to WikiMind"),
      h("p", {}, "WikiMind compiles your notes into an interlinked wiki with a language model that runs on your machine."),
      h("p", { class: "error", id: "welcome-problem" }, s.provider.kind === "builtin" ? `The built-in engine cannot use ${s.provider.base_url}.` : `No model server answers at ${s.provider.base_url}.`),
      builtinOffer(s, result),
      h(
        "ol",
        {},
        h("li", {}, "Install Ollama from ollama.com, then start it: ", h("code", {}, "ollama serve")),
        h("li", {}, "Fetch a model: ", h("code", {}, `ollama pull ${s.defaults.find((d) => d.kind === "ollama")?.model ?? s.provider.model}`)),
        h("li", {}, "Or use another server (llama.cpp, LM Studio, vLLM, OpenAI), or the built-in engine with a model file, below."),
      ),
      f.el,
      h(
        "div",
        { class: "buttons" },
        h(
          "button",
          {
            id: "welcome-retry",
            class: "primary",
            onclick: async () => {
              const c = await attempt("Checking", commands.check_connection(f.read()));
              if (c?.ok) {
                await attempt("Saving", commands.apply_provider(f.read()));
                showBanner(c);
                go({ kind: "library" });
                say(c.message);
              } else if (c) replace(result, c.message);
            },
          },
          "Check again",
        ),
        h("button", { id: "welcome-skip", onclick: () => go({ kind: "library" }) }, "Browse the wiki without a model"),
      ),
      result,
    ),
  );
}

// ---------- events, keys, drop ----------

// Progress arrives once per token: the job list is painted at most once a frame, and the
// library or sources are reloaded once a burst of finished jobs settles, not per job.
let jobsPaintQueued = false;
function schedulePaintJobs() {
  if (jobsPaintQueued) return;
  jobsPaintQueued = true;
  requestAnimationFrame(() => {
    jobsPaintQueued = false;
    paintJobs();
  });
}
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
function scheduleRefresh() {
  if (refreshTimer !== undefined) clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    const cur = state.history.current?.kind;
    if (cur === "add") void renderSources();
    if (cur === "library" && !state.hits) void renderLibrary();
  }, 250);
}

void listen<JobProgress>(JOB_EVENT, ({ payload }) => {
  state.jobs = applyJob(state.jobs, payload);
  schedulePaintJobs();
  if (payload.stage === "compiled" || payload.stage === "failed") {
    state.library = null;
    scheduleRefresh();
    if (payload.kind === "page") {
      const title = jobTitle(payload);
      if (payload.stage === "compiled") say(`Page “${title}”: ${payload.message ?? "written"}`);
      else say(`Page “${title}” not written: ${payload.message ?? "see the queue"}`, true);
    } else if (payload.stage === "compiled") say(`Compiled “${jobTitle(payload)}”`);
    else say(`Failed: ${payload.message ?? "see Raw answers in Add sources"}`, true);
  }
});

void listen<AskProgress>(ASK_EVENT, ({ payload }) => {
  // Only the question being answered now: one stopped by a newer question may still talk.
  if (!state.ask.running || payload.question !== state.ask.question) return;
  state.ask.progress = payload;
  scheduleAskPaint();
});

document.addEventListener("keydown", (e) => {
  const t = e.target as HTMLElement;
  const inField = t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement;
  const action = keyAction({ key: e.key, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey, inField });
  if (!action) return;
  const onLibrary = state.history.current?.kind === "library";
  if (action === "focus-search") {
    e.preventDefault();
    search.focus();
    search.select();
  } else if (action === "back") {
    e.preventDefault();
    back();
  } else if (action === "forward") {
    e.preventDefault();
    forward();
  } else if (typeof action === "object") {
    e.preventDefault();
    go({ kind: action.go });
  } else if (action === "escape") {
    if (t === search && search.value) {
      search.value = "";
      search.dispatchEvent(new Event("input"));
    } else if (t === search) search.blur();
  } else if (onLibrary && (action === "down" || action === "up") && (!inField || t === search)) {
    e.preventDefault();
    moveSelection(action === "down" ? 1 : -1);
  } else if (onLibrary && action === "open" && (!inField || t === search) && !(t instanceof HTMLButtonElement || t instanceof HTMLAnchorElement)) {
    const row = currentRows()[state.selected];
    if (row) go({ kind: "page", id: row.id });
  }
});

function showDrop(s: { active: boolean; count: number }) {
  dropOverlay.hidden = !s.active;
  const label = dropOverlay.firstElementChild;
  if (label) label.textContent = s.count ? `Drop to add ${s.count} item${s.count === 1 ? "" : "s"} to the wiki` : "Drop to add to the wiki";
}

/** The model's state over a wiki that has pages: what is wrong, with the first-run screen's
 * actions one click away. Hidden when the model answers and is there. */
function showBanner(c: ConnectionCheck) {
  if (c.ok && c.model_available) {
    banner.hidden = true;
    replace(banner);
    return;
  }
  replace(
    banner,
    h("span", { class: "message" }, c.message),
    h("button", { id: "banner-setup", onclick: () => go({ kind: "welcome" }) }, "Set up a model"),
    h("button", { id: "banner-settings", onclick: () => go({ kind: "settings" }) }, "Settings"),
    h(
      "button",
      {
        id: "banner-retry",
        onclick: async () => {
          const o = await attempt("Checking the model", commands.opening());
          if (o) {
            if (o.check.ok) state.models = o.check.models;
            showBanner(o.check);
          }
        },
      },
      "Check again",
    ),
  );
  banner.hidden = false;
}

async function start() {
  void wireDrop((handler) => getCurrentWebview().onDragDropEvent(handler), showDrop, async (paths) => {
    await addPaths(paths);
    go({ kind: "add" });
  }).catch(() => undefined);
  state.history.push({ kind: "library" });
  await render();
  const s = await attempt("Reading settings", commands.settings());
  if (!s) return;
  state.settings = s;
  // The core decides: the first-run screen for an empty wiki with no model; a wiki with
  // pages opens on its library, the model's state as a banner.
  const o = await commands.opening().catch(() => null);
  if (o) {
    if (o.check.ok) state.models = o.check.models;
    if (o.first_run) go({ kind: "welcome" });
    else showBanner(o.check);
  }
  state.jobs = (await attempt("Reading the queue", commands.jobs())) ?? [];
  paintJobs();
}

void start();
