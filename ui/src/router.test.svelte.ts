// The whole window mounted in jsdom over a scripted core: every command waits until the
// test answers it, so replies can arrive after the person has moved on.
import { flushSync, mount, tick, unmount } from "svelte";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ArticleId, ConnectionCheck, ListedPage, LibraryView, PageId, PageSourceView, PageView, QuoteView, SettingsView, SourceId } from "./bindings";

/** Ids as the core sends them (numbers branded by kind). */
const pid = (n: number) => n as PageId;
const sid = (n: number) => n as SourceId;

vi.mock("./bindings", async (original) => (await import("./scripted-core")).scriptedBindings(original));
vi.mock("@tauri-apps/api/event", () => ({ listen: async () => () => undefined }));
vi.mock("@tauri-apps/api/webview", () => ({ getCurrentWebview: () => ({ onDragDropEvent: async () => () => undefined }) }));

const { default: App } = await import("./App.svelte");
const { pending } = await import("./scripted-core");
const { go } = await import("./router.svelte");
const { app: state } = await import("./state.svelte");

/** Answers the oldest waiting command named `name`. */
async function answer(name: string, value: unknown) {
  const i = pending.findIndex((p) => p.name === name);
  if (i < 0) throw new Error(`no ${name} waits (waiting: ${pending.map((p) => p.name).join(", ")})`);
  pending.splice(i, 1)[0].answer(value);
  for (let n = 0; n < 5; n++) await tick();
  flushSync();
}
/** Lets timers of 0 ms (the library's first read) run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

const library: LibraryView = { counts: { sources: 1, pages: 1, answers: 0, wanted: 0 }, entries: [], topic_count: 0, tag: null, tags: [], wanted: [], health: null };
const page = (title: string): PageView => ({
  id: pid(1),
  kind: "topic",
  title,
  summary: "",
  html: "<p>body</p>",
  quote_marked: false,
  summary_cited: false,
  truncated: false,
  version: 1,
  edited: false,
  stale_reason: null,
  flagged: null,
  claims: [],
  concepts: [],
  open_questions: [],
  links: [],
  backlinks: [],
  tags: [],
  aliases: [],
  sources: [],
  history: [],
  markdown: "body",
  suggestions: [],
});

const settings: SettingsView = {
  provider: { kind: "ollama", base_url: "http://127.0.0.1:9", model: "m" },
  fallbacks: [],
  pool: [],
  has_api_key: false,
  data_dir: "/data",
  config_file: null,
  applied: null,
  defaults: [],
  builtin: { available: false, model_file: null, model_dir: null, hint: "no engine" },
};
const answered: ConnectionCheck = { ok: true, message: "answered", models: ["m"], model_available: true };

let app: ReturnType<typeof mount>;
beforeAll(async () => {
  app = mount(App, { target: document.body });
  flushSync();
  await settle();
  await answer("library", library);
});
afterAll(() => void unmount(app));

describe("the router", () => {
  it("paints a reply for the screen on show", async () => {
    go({ kind: "page", id: pid(1) });
    flushSync();
    await answer("page", page("Espresso"));
    expect(document.querySelector("#article-title")?.textContent).toBe("Espresso");
    expect(document.body.dataset.screen).toBe("page");
  });

  it("drops a reply for a screen the person has left", async () => {
    go({ kind: "page", id: pid(2) });
    flushSync();
    go({ kind: "library" });
    flushSync();
    await answer("page", page("Late"));
    expect(document.querySelector("#article-title")).toBeNull();
    expect(document.body.dataset.screen).toBe("library");
    expect(document.querySelector("#counts")?.textContent).toContain("1 page ·");
  });

  it("unmounts the screen it leaves, and a repeat visit is a fresh mount", async () => {
    go({ kind: "page", id: pid(1) });
    flushSync();
    await answer("page", page("Espresso"));
    const first = document.querySelector("#article-title");
    go({ kind: "library" });
    flushSync();
    expect(first?.isConnected).toBe(false);
  });

  it("does not let a late check on the first-run screen take the person elsewhere", async () => {
    await answer("settings", settings); // the window's own start
    go({ kind: "welcome" });
    flushSync();
    (document.querySelector("#welcome-retry") as HTMLButtonElement).click();
    flushSync();
    expect(pending.some((p) => p.name === "check_connection")).toBe(true);
    go({ kind: "queue" });
    flushSync();
    await answer("check_connection", answered);
    while (pending.some((p) => p.name === "apply_provider")) await answer("apply_provider", settings);
    expect(document.body.dataset.screen).toBe("queue");
    expect(document.querySelector("#job-list")).not.toBeNull();
  });
});

describe("screens show what the core decided", () => {
  const grinder: ListedPage = {
    id: pid(3),
    kind: "topic",
    title: "Burr Grinder",
    summary: "Clean it like [[Steam Wand#Cleaning]].",
    summary_text: "Clean it like Steam Wand > Cleaning.",
    updated_at: "2026-11-25T00:00:00Z",
    source_count: 1,
    stale: false,
    claims: { sourced: 0, inferred: 0, opinion: 0 },
    flagged: null,
    tags: ["gear"],
    folder: null,
  };
  const source: PageSourceView = {
    source_id: sid(5),
    article_id: 9 as ArticleId,
    title: "Espresso notes",
    origin: "/notes/espresso.md",
    final_url: null,
    compiled_at: "2026-11-25T00:00:00Z",
    provider: "ollama",
    model: "m",
    path: "espresso.md",
  };
  const notFound: QuoteView = { source_id: sid(5), origin: source.origin, found: false, before: "", quote: "", after: "Espresso.", more_before: false, more_after: false };
  const where = () => document.querySelector("#cited-where")?.textContent ?? "";
  // jsdom scrolls nothing.
  Element.prototype.scrollIntoView = () => undefined;

  it("narrows the library by asking the core for the picked tag, and shows the core's tags and summary", async () => {
    go({ kind: "library" });
    flushSync();
    state.tag = "gear";
    flushSync();
    await settle();
    expect(pending.find((p) => p.name === "library")?.args).toEqual(["title", "gear"]);
    await answer("library", { ...library, entries: [grinder], topic_count: 1, tag: "gear", tags: ["coffee", "gear"] });
    expect(document.querySelector("#counts")?.textContent).toMatch(/^1 of 1 page tagged #gear · /);
    expect([...document.querySelectorAll("#tag-filter option")].map((o) => o.textContent)).toEqual(["All tags", "#coffee", "#gear"]);
    expect(document.querySelector(".lib-row .lib-summary")?.textContent).toBe("Clean it like Steam Wand > Cleaning.");
    state.tag = "";
    flushSync();
    await settle();
    expect(pending.find((p) => p.name === "library")?.args).toEqual(["title", null]);
    await answer("library", library);
  });

  it("says nothing of a wiki it has not read yet: never that it is empty", async () => {
    state.library = null;
    go({ kind: "library" });
    flushSync();
    await settle();
    expect(pending.some((p) => p.name === "library")).toBe(true);
    expect(document.body.textContent).not.toContain("Your wiki is empty");
    expect(document.querySelector("#counts")).toBeNull();
    expect(document.querySelector(".library .counts")?.textContent).toBe("Reading the library…");
    await answer("library", library);
    expect(document.querySelector("#counts")?.textContent).toContain("1 page ·");
  });

  it("asks the core for the rows scrolled into view, not every row at once", async () => {
    go({ kind: "library" });
    flushSync();
    state.libraryVersion++; // pages changed: the library is read again
    flushSync();
    await new Promise((r) => setTimeout(r, 300));
    const topic = (n: number): ListedPage => ({ ...grinder, id: pid(n), title: `Topic ${n}`, summary_text: `Row ${n}.` });
    const first = Array.from({ length: 300 }, (_, n) => topic(n + 1));
    await answer("library", { ...library, entries: first, topic_count: 100_000, counts: { ...library.counts, pages: 100_000 } });
    expect(document.querySelector("#counts")?.textContent).toMatch(/^100000 pages/);
    expect(pending.some((p) => p.name === "library_rows")).toBe(false);
    // Scrolled to row 50,000: the one block holding it is asked for, and shown when it comes.
    const list = document.querySelector("#library-list") as HTMLElement;
    list.scrollTop = 68 * 50_010;
    list.dispatchEvent(new Event("scroll"));
    await new Promise((r) => setTimeout(r, 50));
    flushSync();
    const asked = pending.filter((p) => p.name === "library_rows").map((p) => p.args);
    expect(asked).toEqual([["title", null, 50_000, 200]]);
    expect(document.querySelectorAll(".lib-row-pending").length).toBeGreaterThan(0);
    await answer("library_rows", Array.from({ length: 200 }, (_, k) => topic(50_001 + k)));
    expect([...document.querySelectorAll(".lib-row .lib-title")].map((t) => t.textContent)).toContain("Topic 50011");
    expect(document.querySelectorAll(".lib-row-pending").length).toBe(0);
    // Scrolling back within what came asks for nothing again.
    list.scrollTop = 68 * 50_020;
    list.dispatchEvent(new Event("scroll"));
    await new Promise((r) => setTimeout(r, 50));
    flushSync();
    expect(pending.some((p) => p.name === "library_rows")).toBe(false);
    // A finished job reloads the library in the same order: the rows on screen stay while
    // their block is asked for again, then show what the core sends now.
    state.libraryVersion++;
    flushSync();
    await new Promise((r) => setTimeout(r, 300));
    await answer("library", { ...library, entries: first, topic_count: 100_000, counts: { ...library.counts, pages: 100_000 } });
    await new Promise((r) => setTimeout(r, 50));
    flushSync();
    expect(document.querySelectorAll(".lib-row-pending").length).toBe(0);
    expect([...document.querySelectorAll(".lib-row .lib-title")].map((t) => t.textContent)).toContain("Topic 50021");
    expect(pending.filter((p) => p.name === "library_rows").map((p) => p.args)).toEqual([["title", null, 50_000, 200]]);
    await answer("library_rows", Array.from({ length: 200 }, (_, k) => ({ ...topic(50_001 + k), title: `Renamed ${50_001 + k}` })));
    expect([...document.querySelectorAll(".lib-row .lib-title")].map((t) => t.textContent)).toContain("Renamed 50021");
  });

  it("opens a page at the quote the core marked, and looks in the sources when the page does not hold it", async () => {
    go({ kind: "page", id: pid(1), quote: "nine bars" });
    flushSync();
    const marked = '<p>At <mark class="cited-quote" id="wm-cited-quote">nine bars</mark>.</p>';
    await answer("page", { ...page("Espresso"), html: marked, quote_marked: true, sources: [source] });
    expect(where()).toBe("Marked on this page below.");
    expect(pending.some((p) => p.name === "quote")).toBe(false);

    go({ kind: "page", id: pid(1), quote: "ten bars" });
    flushSync();
    await answer("page", { ...page("Espresso"), sources: [source] });
    expect(pending.find((p) => p.name === "quote")?.args).toEqual([1, "ten bars"]);
    expect(where()).toContain("Not in this page's text");
    await answer("quote", notFound);
  });
});
