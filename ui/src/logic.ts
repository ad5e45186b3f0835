// View logic with no DOM and no IPC, so it can be unit-tested (see logic.test.ts).
import { ID_PREFIX, type AnswerClaimView, type AskProgress, type JobProgress, type ClaimCounts, type PageId, type PageSourceView, type SourceCountsView, type SourceId, type SourceStatus, type StageView } from "./bindings";

/**
 * The blocks of `block` rows (each named by its first row, a multiple of `block`) to ask the
 * core for so that rows `start`..`end` (end excluded) are all there: none inside the first
 * `first` rows (sent with the library), none already `asked` for (fetched or on the way).
 */
export function blocksToFetch(start: number, end: number, first: number, asked: ReadonlySet<number>, block: number): number[] {
  const out: number[] = [];
  if (block <= 0) return out;
  // Only the rows past the first ones are missing.
  const from = Math.max(0, start, first);
  if (from >= end) return out;
  for (let b = Math.floor(from / block) * block; b < end; b += block) {
    if (!asked.has(b)) out.push(b);
  }
  return out;
}

/** Which rows of a fixed-height list are on screen (plus `overscan` rows either side). */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 6,
): { start: number; end: number } {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const shown = Math.ceil(Math.max(0, viewport) / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + shown + overscan);
  return { start, end: Math.max(start, end) };
}

/** The scrollTop that brings row `index` into view, or null when it already is. */
export function scrollToReveal(
  index: number,
  scrollTop: number,
  viewport: number,
  rowHeight: number,
): number | null {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewport) return top + rowHeight - viewport;
  return null;
}

/** The confidence mix of a page's claims as shares of 100 (for the bar) and a label. */
export function confidenceMix(e: ClaimCounts): {
  sourced: number;
  inferred: number;
  opinion: number;
  label: string;
} {
  const total = e.sourced + e.inferred + e.opinion;
  if (total === 0) return { sourced: 0, inferred: 0, opinion: 0, label: "no claims" };
  const pct = (n: number) => Math.round((n * 100) / total);
  return {
    sourced: pct(e.sourced),
    inferred: pct(e.inferred),
    opinion: pct(e.opinion),
    label: `${e.sourced} sourced · ${e.inferred} inferred · ${e.opinion} opinion`,
  };
}

/** How many sources feed a page, as a library row says it. */
export function sourceCountLabel(n: number): string {
  return `${n} source${n === 1 ? "" : "s"}`;
}

/** The notice over a page that waits to be rewritten from its digests, or null for a
 * current page. Several sources: it says so (the page shows one digest until then);
 * otherwise the store's reason. */
export function staleNotice(staleReason: string | null, sourceCount: number): string | null {
  if (staleReason === null) return null;
  if (sourceCount > 1) return `${sourceCount} sources feed this page; it will be rewritten from all of them.`;
  return `This page will be rewritten: ${staleReason}.`;
}

/** A short name for a source on a claim's badge: a file by its path in the folder it came
 * from (the core's `path`; else its name), a web page by its address, pasted text by its
 * digest's title (its origin is only a hash). */
export function sourceBadgeLabel(s: Pick<PageSourceView, "origin" | "title"> & Partial<Pick<PageSourceView, "path">>): string {
  if (s.origin.startsWith("text:")) return s.title;
  if (/^https?:\/\//.test(s.origin)) return s.origin.replace(/^https?:\/\/(www\.)?/, "").replace(/\/$/, "");
  return s.path ?? originLabel(s.origin).label;
}

/** The badges of a claim: one per source holding its quote, numbered as in the page's
 * Sources panel (1 = the oldest); a source no longer feeding the page is left out. */
export function claimBadges(
  sourceIds: SourceId[],
  sources: (Pick<PageSourceView, "source_id" | "origin" | "title"> & Partial<Pick<PageSourceView, "path">>)[],
): { sourceId: SourceId; number: number; label: string }[] {
  const out: { sourceId: SourceId; number: number; label: string }[] = [];
  for (const id of sourceIds) {
    const i = sources.findIndex((s) => s.source_id === id);
    if (i >= 0) out.push({ sourceId: id, number: i + 1, label: sourceBadgeLabel(sources[i]) });
  }
  return out;
}

/** One line of a diff: kept, added (only in the newer text) or removed (only in the older). */
export interface DiffLine {
  op: "same" | "add" | "del";
  text: string;
}

/** A line diff from `older` to `newer` (longest common subsequence; where lines changed,
 * the removed ones come before the added ones). Meant for page versions (a few thousand
 * lines at most: the table is lines × lines). */
export function lineDiff(older: string, newer: string): DiffLine[] {
  const a = older.split("\n");
  const b = newer.split("\n");
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "same", text: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ op: "del", text: a[i++] });
    else out.push({ op: "add", text: b[j++] });
  }
  while (i < n) out.push({ op: "del", text: a[i++] });
  while (j < m) out.push({ op: "add", text: b[j++] });
  return out;
}

/** Back/forward between screens, like a browser's. */
export class History<T> {
  private items: T[] = [];
  private index = -1;

  constructor(private same: (a: T, b: T) => boolean = (a, b) => a === b) {}

  get current(): T | undefined {
    return this.items[this.index];
  }
  get canBack(): boolean {
    return this.index > 0;
  }
  get canForward(): boolean {
    return this.index < this.items.length - 1;
  }

  /** Goes to `item`, dropping the forward entries (a repeat of the current one is ignored). */
  push(item: T): void {
    const cur = this.current;
    if (cur !== undefined && this.same(cur, item)) return;
    this.items = this.items.slice(0, this.index + 1);
    this.items.push(item);
    this.index = this.items.length - 1;
  }
  back(): T | undefined {
    if (this.canBack) this.index--;
    return this.current;
  }
  forward(): T | undefined {
    if (this.canForward) this.index++;
    return this.current;
  }
}

/** What a Tauri drag-and-drop event says (`getCurrentWebview().onDragDropEvent`). */
export type DragDropPayload =
  | { type: "enter"; paths: string[] }
  | { type: "over" }
  | { type: "drop"; paths: string[] }
  | { type: "leave" };

/** Whether the drop overlay shows, and how many items are being dragged. */
export interface DropState {
  active: boolean;
  count: number;
}

/** The next drop state, and the paths to add when something was dropped. */
export function dropReducer(
  state: DropState,
  event: DragDropPayload,
): { state: DropState; add: string[] | null } {
  switch (event.type) {
    case "enter":
      return { state: { active: true, count: event.paths.length }, add: null };
    case "over":
      return { state: { ...state, active: true }, add: null };
    case "leave":
      return { state: { active: false, count: 0 }, add: null };
    case "drop": {
      const paths = [...new Set(event.paths.map((p) => p.trim()).filter((p) => p.length > 0))];
      return { state: { active: false, count: 0 }, add: paths.length ? paths : null };
    }
  }
}

/** Wires drag-and-drop: `listen` subscribes to the webview's events; the overlay is shown
 * through `show`, and dropped paths go to `add` once per drop. */
export async function wireDrop(
  listen: (handler: (event: { payload: DragDropPayload }) => void) => Promise<() => void>,
  show: (state: DropState) => void,
  add: (paths: string[]) => void | Promise<void>,
): Promise<() => void> {
  let state: DropState = { active: false, count: 0 };
  return listen(({ payload }) => {
    const next = dropReducer(state, payload);
    state = next.state;
    show(state);
    if (next.add) void add(next.add);
  });
}

/** Keeps only the answer to the latest request (search as you type). */
export function latestOnly<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R | undefined> {
  let seq = 0;
  return async (...args: A) => {
    const mine = ++seq;
    const result = await fn(...args);
    return mine === seq ? result : undefined;
  };
}

const FINISHED: StageView[] = ["compiled", "failed", "cancelled"];

/** Whether a job is done (compiled, failed or cancelled). */
export function isFinished(stage: StageView): boolean {
  return FINISHED.includes(stage);
}

/** What a job's row stands for: one row per source and one per page, whatever the run. */
export function jobKey(j: Pick<JobProgress, "kind" | "source_id" | "page_id">): string {
  return j.kind === "page" ? `page:${j.page_id}` : `source:${j.source_id}`;
}

/** The job list after an event: the job's row (its source's or its page's) is replaced,
 * or added at the end. A late progress event never overwrites a finished state of the
 * same run. */
export function applyJob(jobs: JobProgress[], event: JobProgress): JobProgress[] {
  const key = jobKey(event);
  const i = jobs.findIndex((j) => jobKey(j) === key);
  if (i < 0) return [...jobs, event];
  const prev = jobs[i];
  if (isFinished(prev.stage) && !isFinished(event.stage) && event.stage !== "queued" && event.stage !== "prompting") {
    return jobs;
  }
  const next = jobs.slice();
  next[i] = { ...event, title: event.title ?? prev.title };
  return next;
}

/** The figures line under a job: provider, attempt, and the tokens streaming in now or,
 * once it ended, its calls and answer tokens. Each field keeps one meaning. */
export function jobFigures(j: JobProgress): string {
  const parts = [j.provider];
  if (j.calls !== null) {
    parts.push(`${j.calls} ${j.calls === 1 ? "call" : "calls"}`);
    if (j.tokens_out !== null) parts.push(`${j.tokens_out} tokens`);
  } else {
    if (j.attempt > 0) parts.push(`attempt ${j.attempt}`);
    if (j.stage === "receiving") parts.push(`${j.received} tokens`);
  }
  return parts.filter(Boolean).join(" · ");
}

/** A job's heading: a source by its digest's title once known, a page by its title. */
export function jobTitle(j: JobProgress): string {
  if (j.kind === "page") return j.title ?? `Page ${j.page_id}`;
  return j.title ?? `Source ${j.source_id}`;
}

/** The label of a job's stage for people. */
export function stageLabel(j: JobProgress): string {
  switch (j.stage) {
    case "queued":
      return "waiting";
    case "reading":
      return j.message ?? "reading a large source in parts";
    case "prompting":
      return j.attempt > 1 ? `asking again (attempt ${j.attempt})` : "sending the prompt";
    case "receiving":
      return `receiving · ${j.received} tokens`;
    case "parsing":
      return "checking the answer";
    case "saving":
      return "saving";
    case "compiled":
      return j.kind === "page" ? "done" : "compiled";
    case "failed":
      return "failed";
    case "cancelled":
      return "cancelled";
  }
}

/** The screens of the app. A page opened from a citation carries the quote to highlight. */
export type Screen =
  | { kind: "library" }
  | { kind: "ask" }
  | { kind: "page"; id: PageId; quote?: string; anchor?: string }
  | { kind: "wanted"; title: string }
  | { kind: "sources" }
  | { kind: "source"; id: SourceId }
  | { kind: "add" }
  | { kind: "queue" }
  | { kind: "settings" }
  | { kind: "health" }
  | { kind: "notes"; id?: string }
  | { kind: "welcome" }
  /** The graph; with `page`, the local graph of that page, `depth` links deep (1–3). */
  | { kind: "graph"; page?: PageId; depth?: number };

/** Whether two screens are the same place. */
export function sameScreen(a: Screen, b: Screen): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "page" && b.kind === "page") return a.id === b.id && a.quote === b.quote && a.anchor === b.anchor;
  if (a.kind === "source" && b.kind === "source") return a.id === b.id;
  if (a.kind === "wanted" && b.kind === "wanted") return a.title === b.title;
  if (a.kind === "notes" && b.kind === "notes") return a.id === b.id;
  if (a.kind === "graph" && b.kind === "graph") return a.page === b.page && a.depth === b.depth;
  return true;
}

/** What a key press does, or null. */
export type KeyAction =
  | "focus-search"
  | "back"
  | "forward"
  | "down"
  | "up"
  | "open"
  | "escape"
  | { go: "library" | "sources" | "add" | "queue" | "settings" | "ask" | "notes" | "health" | "graph" };

/** Maps a key press to an action. Plain letters do nothing while typing in a field. */
export function keyAction(e: {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  inField: boolean;
}): KeyAction | null {
  const mod = e.ctrlKey || e.metaKey;
  if ((mod && e.key.toLowerCase() === "k") || (!e.inField && e.key === "/")) return "focus-search";
  if (e.altKey && e.key === "ArrowLeft") return "back";
  if (e.altKey && e.key === "ArrowRight") return "forward";
  if (e.altKey && /^[1-9]$/.test(e.key)) {
    const go = (["library", "sources", "add", "queue", "settings", "ask", "notes", "health", "graph"] as const)[Number(e.key) - 1];
    return { go };
  }
  if (e.key === "Escape") return "escape";
  if (e.key === "ArrowDown") return "down";
  if (e.key === "ArrowUp") return "up";
  if (e.key === "Enter" && !mod) return "open";
  if (!e.inField && !mod && !e.altKey) {
    if (e.key === "j") return "down";
    if (e.key === "k") return "up";
    if (e.key === "[") return "back";
    if (e.key === "]") return "forward";
  }
  return null;
}

/** What a click on a link inside a rendered page or digest means (a wiki link's
 * `data-article-id` holds a page id). */
export type LinkClick =
  | { kind: "page"; id: PageId; anchor?: string }
  | { kind: "section"; anchor: string }
  | { kind: "wanted"; title: string }
  | { kind: "external"; url: string }
  | { kind: "ignore" };

/** Reads a link of the core's rendered HTML (see wikimind::render). */
export function linkClick(a: { className: string; getAttribute(name: string): string | null }): LinkClick {
  const classes = a.className.split(/\s+/);
  const id = a.getAttribute("data-article-id");
  if (classes.includes("wikilink") && id !== null && /^\d+$/.test(id)) {
    const anchor = a.getAttribute("data-anchor");
    // The core wrote the attribute from a page's id: the one place a number becomes one.
    const page = Number(id) as PageId;
    return anchor && isSectionId(anchor) ? { kind: "page", id: page, anchor } : { kind: "page", id: page };
  }
  const section = (a.getAttribute("href") ?? "").slice(1);
  if (classes.includes("wikilink") && (a.getAttribute("href") ?? "").startsWith("#") && isSectionId(section)) {
    return { kind: "section", anchor: section };
  }
  const wanted = a.getAttribute("data-wanted");
  if (classes.includes("wanted") && wanted) return { kind: "wanted", title: wanted };
  const href = a.getAttribute("href") ?? "";
  if (classes.includes("external") && /^(https?:|mailto:)/i.test(href)) {
    return { kind: "external", url: href };
  }
  return { kind: "ignore" };
}

/** Whether `id` is an id of the core's rendered HTML (it starts with the renderer's
 * `ID_PREFIX`), so a section link never scrolls to an element the window owns. */
export function isSectionId(id: string): boolean {
  return id.length > ID_PREFIX.length && id.startsWith(ID_PREFIX);
}

/** The choices of the Sources screen's status filter: every source, then each status some
 * source has (and the one chosen, even when none is left), each with its count. */
export function sourceStatusChoices(counts: SourceCountsView, chosen: SourceStatus | ""): { value: SourceStatus | ""; label: string }[] {
  const out: { value: SourceStatus | ""; label: string }[] = [{ value: "", label: `All (${counts.all})` }];
  for (const s of ["pending", "compiling", "compiled", "stale", "failed"] as const) {
    if (counts[s] > 0 || s === chosen) out.push({ value: s, label: `${s[0].toUpperCase()}${s.slice(1)} (${counts[s]})` });
  }
  return out;
}

/** How a source's origin reads to a person: pasted text and stdin by what they are (their
 * origin is a content hash), a file by its name (the full path goes in a tooltip), a URL as is. */
export function originLabel(origin: string): { label: string; full: string } {
  if (origin.startsWith("text:")) return { label: "Pasted text", full: origin };
  if (/^https?:\/\//.test(origin)) return { label: origin, full: origin };
  const name = origin.split(/[\\/]/).filter(Boolean).pop();
  return { label: name ?? origin, full: origin };
}

/** An ISO-8601 time as `YYYY-MM-DD HH:MM` in the given (default: local) time zone offset. */
export function shortTime(iso: string, offsetMinutes = -new Date(iso).getTimezoneOffset()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t + offsetMinutes * 60_000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** What an answer being written is doing, for people. */
export function askStageLabel(p: Pick<AskProgress, "stage" | "provider" | "attempt" | "received" | "message">): string {
  switch (p.stage) {
    case "prompting":
      return p.attempt > 1 ? `asking ${p.provider} again (attempt ${p.attempt})` : `asking ${p.provider}`;
    case "receiving":
      return `${p.provider} is answering · ${p.received} tokens`;
    case "failed":
      return `${p.provider} failed${p.message ? `: ${p.message}` : ""}`;
    case "queued":
    case "reading":
      return "reading the pages";
    default:
      return "checking the citations";
  }
}

/** How a claim's citation reads: its quote found in the cited page (or its sources), or
 * not found there and therefore shown as inferred. */
export function citationMark(c: Pick<AnswerClaimView, "grounded" | "quote_not_found" | "confidence">, page: string): {
  mark: string;
  label: string;
  kind: "found" | "not-found" | "none";
} {
  if (c.grounded) return { mark: "✓", label: `quote found in ${page}`, kind: "found" };
  if (c.quote_not_found) {
    const shown = c.confidence === "inferred" ? ": shown as inferred" : "";
    return { mark: "⚠", label: `quote not found in ${page}${shown}`, kind: "not-found" };
  }
  return { mark: "", label: "no quote", kind: "none" };
}

/** What a reply asked for by a screen comes to: its value or error while the screen is
 * shown, or `left` once the person moved on (the screen's signal aborted), so a late reply
 * never reaches the screen that replaced the one that asked. */
export type ScreenReply<T> = { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "left" };

/** Awaits `p` for the screen whose mount `signal` belongs to (see `ScreenReply`). */
export async function forScreen<T>(signal: AbortSignal, p: Promise<T>): Promise<ScreenReply<T>> {
  try {
    const value = await p;
    return signal.aborted ? { kind: "left" } : { kind: "value", value };
  } catch (error) {
    return signal.aborted ? { kind: "left" } : { kind: "error", error };
  }
}

/** The library's counts line: pages, saved answers (when any), sources, wanted pages;
 * narrowed to a tag (as the core read it, `LibraryView.tag`), how many topics it shows. */
export function countsLabel(
  c: { pages: number; answers: number; sources: number; wanted: number },
  filter?: { tag: string | null; shown: number },
): string {
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  const tag = filter?.tag;
  const pages = tag
    ? `${filter!.shown} of ${n(c.pages, "page", "pages")} tagged #${tag}`
    : n(c.pages, "page", "pages");
  const answers = c.answers ? `${n(c.answers, "saved answer", "saved answers")} · ` : "";
  return `${pages} · ${answers}${n(c.sources, "source", "sources")} · ${n(c.wanted, "wanted page", "wanted pages")}`;
}

/** A page version as the text the history compares: title, summary, body, claims. */
export function versionText(t: { title: string; summary: string; body: string; claims: string[] }): string {
  return [`# ${t.title}`, "", t.summary, "", t.body, "", ...t.claims.map((c) => `- ${c}`)].join("\n");
}

/** An answer's figures line: provider, model calls, answer tokens (each only when known). */
export function answerMeta(v: { provider: string | null; calls: number; tokens_out: number }): string {
  return [v.provider, v.calls ? `${v.calls} call${v.calls === 1 ? "" : "s"}` : "", v.tokens_out ? `${v.tokens_out} tokens` : ""]
    .filter(Boolean)
    .join(" · ");
}

/** What the status line says after sources were added (`queued`: compiling has begun). */
export function ingestReport(r: { added: unknown[]; skipped: unknown[]; errors: string[] }, queued = false): { message: string; error: boolean } {
  const parts = [`${r.added.length} source${r.added.length === 1 ? "" : "s"} stored`];
  if (queued) parts.push("compiling");
  if (r.skipped.length) parts.push(`${r.skipped.length} skipped`);
  if (r.errors.length) parts.push(`problems: ${r.errors.join("; ")}`);
  return { message: parts.join(" · "), error: r.errors.length > 0 && r.added.length === 0 };
}

/** Collects events that arrive faster than the screen paints (a token each) and hands
 * them over at most once per `schedule` tick (a frame), in arrival order. */
export function batcher<E>(apply: (events: E[]) => void, schedule: (run: () => void) => void): (event: E) => void {
  let pending: E[] = [];
  return (event) => {
    pending.push(event);
    if (pending.length > 1) return;
    schedule(() => {
      const events = pending;
      pending = [];
      apply(events);
    });
  };
}
