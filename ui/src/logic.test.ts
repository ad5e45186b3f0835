import { describe, expect, it, vi } from "vitest";
import type { ArticleId, JobProgress, PageId, SourceId } from "./bindings";

/** Ids as the core sends them (numbers branded by kind). */
const pid = (n: number) => n as PageId;
const sid = (n: number) => n as SourceId;
import {
  answerMeta,
  applyJob,
  batcher,
  blocksToFetch,
  countsLabel,
  forScreen,
  ingestReport,
  versionText,
  askStageLabel,
  citationMark,
  claimBadges,
  confidenceMix,
  dropReducer,
  History,
  jobFigures,
  jobKey,
  jobTitle,
  keyAction,
  latestOnly,
  lineDiff,
  linkClick,
  originLabel,
  sourceStatusChoices,
  sameScreen,
  shortTime,
  scrollToReveal,
  sourceCountLabel,
  stageLabel,
  staleNotice,
  visibleRange,
  wireDrop,
  type DragDropPayload,
  type Screen,
} from "./logic";

describe("virtualised list", () => {
  it("renders only the rows on screen plus overscan, even with 10 000 rows", () => {
    expect(visibleRange(0, 680, 68, 10_000, 6)).toEqual({ start: 0, end: 17 });
    const mid = visibleRange(68 * 5000, 680, 68, 10_000, 6);
    expect(mid).toEqual({ start: 4994, end: 5017 });
    expect(mid.end - mid.start).toBeLessThan(30);
    expect(visibleRange(68 * 9999, 680, 68, 10_000)).toEqual({ start: 9993, end: 10_000 });
    expect(visibleRange(0, 680, 68, 0)).toEqual({ start: 0, end: 0 });
  });
  it("asks the core for the blocks of rows on screen that it has not sent", () => {
    // The first 300 rows came with the library: the top of the list asks for nothing.
    expect(blocksToFetch(0, 17, 300, new Set(), 200)).toEqual([]);
    // Rows 290..310 straddle the first rows and the block from 200 (which reaches 399).
    expect(blocksToFetch(290, 310, 300, new Set(), 200)).toEqual([200]);
    // Deep in a 100,000-row list: the one block holding the screen, once.
    expect(blocksToFetch(50_010, 50_030, 300, new Set(), 200)).toEqual([50_000]);
    expect(blocksToFetch(50_010, 50_030, 300, new Set([50_000]), 200)).toEqual([]);
    // A screen across two blocks asks for both.
    expect(blocksToFetch(395, 410, 300, new Set(), 200)).toEqual([200, 400]);
    expect(blocksToFetch(0, 10, 0, new Set(), 0)).toEqual([]);
    // A list the first rows hold whole asks for nothing.
    expect(blocksToFetch(0, 1, 1, new Set(), 200)).toEqual([]);
  });
  it("scrolls just enough to reveal the selected row", () => {
    expect(scrollToReveal(0, 0, 680, 68)).toBeNull();
    expect(scrollToReveal(10, 0, 680, 68)).toBe(68 * 11 - 680);
    expect(scrollToReveal(2, 68 * 5, 680, 68)).toBe(136);
  });
});

describe("confidence mix", () => {
  it("splits a page's claims into shares", () => {
    expect(confidenceMix({ sourced: 2, inferred: 1, opinion: 1 })).toMatchObject({ sourced: 50, inferred: 25, opinion: 25 });
    expect(confidenceMix({ sourced: 0, inferred: 0, opinion: 0 }).label).toBe("no claims");
  });
});

describe("pages and their sources", () => {
  it("counts sources and says when a page waits for a rewrite", () => {
    expect(sourceCountLabel(1)).toBe("1 source");
    expect(sourceCountLabel(2)).toBe("2 sources");
    expect(staleNotice(null, 2)).toBeNull();
    expect(staleNotice("source 2 now feeds this page", 2)).toBe("2 sources feed this page; it will be rewritten from all of them.");
    expect(staleNotice("source 3 was removed", 1)).toBe("This page will be rewritten: source 3 was removed.");
  });
  it("badges a claim with the sources holding its quote, numbered as listed", () => {
    const sources = [
      { source_id: sid(4), origin: "/notes/espresso.md", title: "Espresso" },
      { source_id: sid(9), origin: "text:ab12", title: "espressos" },
      { source_id: sid(11), origin: "https://www.example.org/coffee/", title: "Coffee" },
    ];
    expect(claimBadges([9, 4, 11, 99].map(sid), sources)).toEqual([
      { sourceId: 9, number: 2, label: "espressos" },
      { sourceId: 4, number: 1, label: "espresso.md" },
      { sourceId: 11, number: 3, label: "example.org/coffee" },
    ]);
    expect(claimBadges([] as SourceId[], sources)).toEqual([]);
    // Two notes sharing a file name read apart by the path the core gives.
    const twins = [
      { source_id: sid(1), origin: "/v/src/Parser/constructor.md", title: "constructor", path: "src/Parser/constructor.md" },
      { source_id: sid(2), origin: "/v/src/Lexer/constructor.md", title: "constructor", path: "src/Lexer/constructor.md" },
    ];
    expect(claimBadges([1, 2].map(sid), twins).map((b) => b.label)).toEqual(["src/Parser/constructor.md", "src/Lexer/constructor.md"]);
  });
  it("diffs two versions line by line", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc\nd")).toEqual([
      { op: "same", text: "a" },
      { op: "del", text: "b" },
      { op: "add", text: "B" },
      { op: "same", text: "c" },
      { op: "add", text: "d" },
    ]);
    expect(lineDiff("same", "same")).toEqual([{ op: "same", text: "same" }]);
    expect(lineDiff("", "new")).toEqual([
      { op: "del", text: "" },
      { op: "add", text: "new" },
    ]);
  });
});

describe("history", () => {
  it("goes back and forward and drops the forward entries on a new visit", () => {
    const h = new History<Screen>(sameScreen);
    h.push({ kind: "library" });
    h.push({ kind: "page", id: pid(1) });
    h.push({ kind: "page", id: pid(1) });
    h.push({ kind: "page", id: pid(2) });
    expect(h.back()).toEqual({ kind: "page", id: 1 });
    expect(h.canForward).toBe(true);
    h.push({ kind: "queue" });
    expect(h.canForward).toBe(false);
    expect(h.back()).toEqual({ kind: "page", id: 1 });
    expect(h.back()).toEqual({ kind: "library" });
    expect(h.canBack).toBe(false);
    expect(h.back()).toEqual({ kind: "library" });
    expect(h.forward()).toEqual({ kind: "page", id: 1 });
  });
});

describe("drop handling", () => {
  it("shows the overlay while dragging and adds each dropped path once", () => {
    let s = { active: false, count: 0 };
    let r = dropReducer(s, { type: "enter", paths: ["/a.md", "/notes"] });
    expect(r).toEqual({ state: { active: true, count: 2 }, add: null });
    s = r.state;
    r = dropReducer(s, { type: "over" });
    expect(r.state).toEqual({ active: true, count: 2 });
    r = dropReducer(r.state, { type: "drop", paths: ["/a.md", " /notes ", "/a.md", ""] });
    expect(r).toEqual({ state: { active: false, count: 0 }, add: ["/a.md", "/notes"] });
  });
  it("adds nothing when the drag leaves or drops no paths", () => {
    expect(dropReducer({ active: true, count: 1 }, { type: "leave" })).toEqual({ state: { active: false, count: 0 }, add: null });
    expect(dropReducer({ active: true, count: 0 }, { type: "drop", paths: [] }).add).toBeNull();
  });
  it("wires the webview's drag-drop events to the overlay and to adding paths", async () => {
    let emit: (e: { payload: DragDropPayload }) => void = () => {};
    const unlisten = vi.fn();
    const listen = vi.fn(async (handler: (e: { payload: DragDropPayload }) => void) => {
      emit = handler;
      return unlisten;
    });
    const shown: boolean[] = [];
    const add = vi.fn();
    const stop = await wireDrop(listen, (s) => shown.push(s.active), add);
    emit({ payload: { type: "enter", paths: ["/home/me/notes"] } });
    emit({ payload: { type: "over" } });
    emit({ payload: { type: "drop", paths: ["/home/me/notes"] } });
    emit({ payload: { type: "enter", paths: ["/x"] } });
    emit({ payload: { type: "leave" } });
    expect(shown).toEqual([true, true, false, true, false]);
    expect(add).toHaveBeenCalledTimes(1);
    expect(add).toHaveBeenCalledWith(["/home/me/notes"]);
    stop();
    expect(unlisten).toHaveBeenCalled();
  });
});

describe("search as you type", () => {
  it("drops answers to queries that were overtaken", async () => {
    const resolvers: ((v: string) => void)[] = [];
    const search = latestOnly((q: string) => new Promise<string>((r) => resolvers.push(() => r(q))));
    const first = search("es");
    const second = search("esp");
    resolvers[1]("");
    resolvers[0]("");
    expect(await second).toBe("esp");
    expect(await first).toBeUndefined();
  });
});

describe("job list", () => {
  const job = (stage: JobProgress["stage"], extra: Partial<JobProgress> = {}): JobProgress => ({
    kind: "source", source_id: sid(1), page_id: null, stage, provider: "ollama:m", attempt: 1, received: 0, calls: null, tokens_out: null, title: null, message: null, article_id: null, ...extra,
  });
  const pageJob = (stage: JobProgress["stage"], extra: Partial<JobProgress> = {}): JobProgress =>
    job(stage, { kind: "page", source_id: null, page_id: pid(1), title: "Espresso", ...extra });
  it("updates a job in place, keeps its title, and ignores a late progress event after it finished", () => {
    let jobs = applyJob([], job("queued"));
    jobs = applyJob(jobs, job("receiving", { received: 12, title: "Espresso" }));
    jobs = applyJob(jobs, job("parsing"));
    expect(jobs).toHaveLength(1);
    expect(jobs[0].title).toBe("Espresso");
    jobs = applyJob(jobs, job("compiled", { article_id: 4 as ArticleId }));
    jobs = applyJob(jobs, job("receiving"));
    expect(jobs[0].stage).toBe("compiled");
    jobs = applyJob(jobs, job("queued"));
    expect(jobs[0].stage).toBe("queued");
    jobs = applyJob(jobs, job("queued", { source_id: sid(2) }));
    expect(jobs.map((j) => j.source_id)).toEqual([1, 2]);
  });
  it("keeps a page's job apart from a source's with the same number, and names each", () => {
    let jobs = applyJob([], job("compiled", { title: "espresso", article_id: 3 as ArticleId }));
    jobs = applyJob(jobs, pageJob("queued"));
    jobs = applyJob(jobs, pageJob("prompting", { title: "Espresso" }));
    expect(jobs.map(jobKey)).toEqual(["source:1", "page:1"]);
    expect(jobs.map(jobTitle)).toEqual(["espresso", "Espresso"]);
    jobs = applyJob(jobs, pageJob("compiled", { message: "written from 2 sources (version 2)" }));
    expect(stageLabel(jobs[1])).toBe("done");
    expect(stageLabel(jobs[0])).toBe("compiled");
    expect(jobs[0].stage).toBe("compiled");
    expect(jobTitle(pageJob("queued", { title: null, page_id: pid(7) }))).toBe("Page 7");
    expect(jobTitle(job("queued", { source_id: sid(5) }))).toBe("Source 5");
  });
  it("shows each figure with one meaning: tokens streaming now, then calls and answer tokens", () => {
    expect(jobFigures(job("receiving", { attempt: 2, received: 40 }))).toBe("ollama:m · attempt 2 · 40 tokens");
    expect(jobFigures(job("parsing", { received: 0 }))).toBe("ollama:m · attempt 1");
    expect(jobFigures(job("compiled", { calls: 3, tokens_out: 812 }))).toBe("ollama:m · 3 calls · 812 tokens");
    expect(jobFigures(job("failed", { calls: 1, tokens_out: null }))).toBe("ollama:m · 1 call");
    expect(jobFigures(job("queued", { attempt: 0, provider: "" }))).toBe("");
  });
});

describe("keyboard", () => {
  const k = (key: string, o: Partial<{ altKey: boolean; ctrlKey: boolean; inField: boolean }> = {}) =>
    keyAction({ key, altKey: false, ctrlKey: false, metaKey: false, inField: false, ...o });
  it("maps keys to actions, and leaves letters alone while typing", () => {
    expect(k("/")).toBe("focus-search");
    expect(k("/", { inField: true })).toBeNull();
    expect(k("k", { ctrlKey: true, inField: true })).toBe("focus-search");
    expect(k("ArrowLeft", { altKey: true })).toBe("back");
    expect(k("ArrowRight", { altKey: true })).toBe("forward");
    expect(k("2", { altKey: true })).toEqual({ go: "sources" });
    expect(k("4", { altKey: true })).toEqual({ go: "queue" });
    expect(k("6", { altKey: true })).toEqual({ go: "ask" });
    expect(k("7", { altKey: true })).toEqual({ go: "notes" });
    expect(k("8", { altKey: true })).toEqual({ go: "health" });
    expect(k("9", { altKey: true })).toEqual({ go: "graph" });
    expect(k("0", { altKey: true })).toBeNull();
    expect(k("j")).toBe("down");
    expect(k("j", { inField: true })).toBeNull();
    expect(k("Enter")).toBe("open");
  });
});

describe("links in rendered articles", () => {
  const a = (cls: string, attrs: Record<string, string>) => ({ className: cls, getAttribute: (n: string) => attrs[n] ?? null });
  it("navigates wiki links, shows wanted pages, opens web links outside, and ignores anything else", () => {
    expect(linkClick(a("wikilink", { "data-article-id": "7", href: "wikimind://article/7" }))).toEqual({ kind: "page", id: 7 });
    expect(linkClick(a("wikilink wanted", { "data-wanted": "Crema" }))).toEqual({ kind: "wanted", title: "Crema" });
    expect(linkClick(a("external", { href: "https://example.org" }))).toEqual({ kind: "external", url: "https://example.org" });
    expect(linkClick(a("external", { href: "javascript:alert(1)" }))).toEqual({ kind: "ignore" });
    expect(linkClick(a("", { href: "file:///etc/passwd" }))).toEqual({ kind: "ignore" });
  });
  it("opens a section of a page, or scrolls to one on this page", () => {
    expect(
      linkClick(a("wikilink", { "data-article-id": "7", "data-anchor": "wm-burr-grinders", href: "wikimind://article/7#wm-burr-grinders" })),
    ).toEqual({ kind: "page", id: 7, anchor: "wm-burr-grinders" });
    expect(linkClick(a("wikilink", { href: "#wm-pressure" }))).toEqual({ kind: "section", anchor: "wm-pressure" });
    expect(linkClick(a("wikilink", { href: "#wm-überschrift-2" }))).toEqual({ kind: "section", anchor: "wm-überschrift-2" });
    // Only the renderer's own ids: nothing else is looked up or scrolled to.
    expect(linkClick(a("wikilink", { "data-article-id": "7", "data-anchor": "x\" onclick" }))).toEqual({ kind: "page", id: 7 });
    expect(linkClick(a("wikilink", { href: "#main" }))).toEqual({ kind: "ignore" });
    expect(linkClick(a("wikilink", { href: "#wm-" }))).toEqual({ kind: "ignore" });
  });
});

describe("source lines", () => {
  it("names pasted text, files and URLs the way a person reads them", () => {
    expect(originLabel("text:f73f2665e1005f9dc0e0547ffacb15a7").label).toBe("Pasted text");
    expect(originLabel("/home/me/notes/espresso.md")).toEqual({ label: "espresso.md", full: "/home/me/notes/espresso.md" });
    expect(originLabel("C:\\notes\\tea.md").label).toBe("tea.md");
    expect(originLabel("https://example.org/a/b.html").label).toBe("https://example.org/a/b.html");
  });
  it("shows compile times to the minute, in the given zone, and leaves nonsense alone", () => {
    expect(shortTime("2026-11-22T18:23:59.264Z", 0)).toBe("2026-11-22 18:23");
    expect(shortTime("2026-11-22T23:30:00Z", 90)).toBe("2026-11-23 01:00");
    expect(shortTime("yesterday")).toBe("yesterday");
  });
});

describe("asking", () => {
  it("marks a quote not found in the cited page as such, inferred when it was demoted", () => {
    expect(citationMark({ grounded: true, quote_not_found: false, confidence: "sourced" }, "Espresso")).toEqual({ mark: "✓", label: "quote found in Espresso", kind: "found" });
    expect(citationMark({ grounded: false, quote_not_found: true, confidence: "inferred" }, "Espresso")).toEqual({ mark: "⚠", label: "quote not found in Espresso: shown as inferred", kind: "not-found" });
    expect(citationMark({ grounded: false, quote_not_found: true, confidence: "opinion" }, "Espresso").label).toBe("quote not found in Espresso");
    expect(citationMark({ grounded: false, quote_not_found: false, confidence: "inferred" }, "Espresso").kind).toBe("none");
  });
  it("says what the answer being written is doing", () => {
    const p = { stage: "receiving" as const, provider: "ollama:m", attempt: 1, received: 12, message: null };
    expect(askStageLabel(p)).toBe("ollama:m is answering · 12 tokens");
    expect(askStageLabel({ ...p, stage: "prompting", attempt: 2 })).toBe("asking ollama:m again (attempt 2)");
    expect(askStageLabel({ ...p, stage: "failed", message: "timed out" })).toBe("ollama:m failed: timed out");
    expect(askStageLabel({ ...p, stage: "parsing" })).toBe("checking the citations");
  });
  it("tells a page opened from a citation apart from the same page opened plainly", () => {
    expect(sameScreen({ kind: "page", id: pid(1), quote: "q" }, { kind: "page", id: pid(1) })).toBe(false);
    expect(sameScreen({ kind: "page", id: pid(1), quote: "q" }, { kind: "page", id: pid(1), quote: "q" })).toBe(true);
    expect(sameScreen({ kind: "ask" }, { kind: "ask" })).toBe(true);
  });
});

describe("screens and their replies", () => {
  it("hands a reply to the screen that asked while it is shown", async () => {
    const ctl = new AbortController();
    expect(await forScreen(ctl.signal, Promise.resolve(7))).toEqual({ kind: "value", value: 7 });
    expect(await forScreen(ctl.signal, Promise.reject("boom"))).toEqual({ kind: "error", error: "boom" });
  });
  it("drops a reply, or its error, once the person left the screen", async () => {
    const ctl = new AbortController();
    let answer!: (v: string) => void;
    const pending = forScreen(ctl.signal, new Promise<string>((r) => (answer = r)));
    ctl.abort();
    answer("late");
    expect(await pending).toEqual({ kind: "left" });
    const failing = forScreen(ctl.signal, Promise.reject(new Error("late")));
    expect(await failing).toEqual({ kind: "left" });
  });
});

describe("labels", () => {
  it("counts the library, saved answers only when there are some", () => {
    expect(countsLabel({ pages: 2, answers: 0, sources: 3, wanted: 1 })).toBe("2 pages · 3 sources · 1 wanted page");
    expect(countsLabel({ pages: 3, answers: 1, sources: 3, wanted: 0 })).toBe("3 pages · 1 saved answer · 3 sources · 0 wanted pages");
    expect(countsLabel({ pages: 3, answers: 2, sources: 3, wanted: 0 })).toContain("2 saved answers");
    expect(countsLabel({ pages: 1, answers: 0, sources: 1, wanted: 1 })).toBe("1 page · 1 source · 1 wanted page");
  });
  it("says how many pages a tag filter shows of all", () => {
    const c = { pages: 18, answers: 0, sources: 12, wanted: 3 };
    expect(countsLabel(c, { tag: "gear", shown: 1 })).toBe("1 of 18 pages tagged #gear · 12 sources · 3 wanted pages");
    expect(countsLabel(c, { tag: null, shown: 18 })).toBe("18 pages · 12 sources · 3 wanted pages");
  });
  it("compares versions as title, summary, body and claims", () => {
    expect(versionText({ title: "T", summary: "S", body: "B", claims: ["c"] })).toBe("# T\n\nS\n\nB\n\n- c");
  });
  it("sums an answer's figures, leaving out what is unknown", () => {
    expect(answerMeta({ provider: "ollama", calls: 1, tokens_out: 0 })).toBe("ollama · 1 call");
    expect(answerMeta({ provider: "", calls: 2, tokens_out: 40 })).toBe("2 calls · 40 tokens");
  });
  it("reports an ingest, an error only when nothing was added", () => {
    expect(ingestReport({ added: [1], skipped: [], errors: [] }, true)).toEqual({ message: "1 source stored · compiling", error: false });
    expect(ingestReport({ added: [], skipped: [1, 2], errors: ["bad"] })).toEqual({ message: "0 sources stored · 2 skipped · problems: bad", error: true });
  });
});

describe("events faster than frames", () => {
  it("hands over every event once per tick, in order", () => {
    const ticks: (() => void)[] = [];
    const seen: number[][] = [];
    const push = batcher<number>((e) => seen.push(e), (run) => ticks.push(run));
    push(1);
    push(2);
    push(3);
    expect(ticks.length).toBe(1);
    ticks.shift()!();
    expect(seen).toEqual([[1, 2, 3]]);
    push(4);
    expect(ticks.length).toBe(1);
    ticks.shift()!();
    expect(seen).toEqual([[1, 2, 3], [4]]);
  });
});

describe("the Sources screen's status filter", () => {
  const counts = { all: 12, pending: 3, compiling: 0, compiled: 7, failed: 2, stale: 0 };
  it("offers every source, then the statuses some source has, with their counts", () => {
    expect(sourceStatusChoices(counts, "")).toEqual([
      { value: "", label: "All (12)" },
      { value: "pending", label: "Pending (3)" },
      { value: "compiled", label: "Compiled (7)" },
      { value: "failed", label: "Failed (2)" },
    ]);
  });
  it("keeps the chosen status on offer when its last source has left it", () => {
    const after = { ...counts, failed: 0, compiled: 9 };
    expect(sourceStatusChoices(after, "failed").map((c) => c.label)).toEqual(["All (12)", "Pending (3)", "Compiled (9)", "Failed (0)"]);
  });
});
