// Components mounted in jsdom: what a person would notice of the library list and of the
// store-driven repaint, without the core.
import { flushSync, mount, unmount } from "svelte";
import { describe, expect, it } from "vitest";
import type { ArticleId, ListedPage, PageId, PageSourceView, ListedVersion, PageView, SourceId } from "./bindings";

/** Ids as the core sends them (numbers branded by kind). */
const pid = (n: number) => n as PageId;
const sid = (n: number) => n as SourceId;
import CitedClaim from "./parts/CitedClaim.svelte";
import LibraryList, { type Row } from "./parts/LibraryList.svelte";
import PageHistory from "./parts/PageHistory.svelte";
import PageSide from "./parts/PageSide.svelte";
import { screenKeys } from "./router.svelte";
import { app } from "./state.svelte";

const entry = (id: number): ListedPage => ({
  id: pid(id),
  kind: "topic",
  title: `Page ${id}`,
  summary: `About ${id}`,
  summary_text: `About ${id}`,
  updated_at: "2026-11-25T00:00:00Z",
  source_count: 1,
  stale: false,
  claims: { sourced: 1, inferred: 0, opinion: 0 },
  tags: [],
  flagged: null,
  folder: null,
});

describe("the library list", () => {
  it("paints only the rows on screen, and new data in place: the element, its scroll and focus stay", () => {
    const props = $state({ rows: Array.from({ length: 10_000 }, (_, i) => ({ id: i, entry: entry(i) })) as Row[] });
    const target = document.createElement("div");
    document.body.append(target);
    const list = mount(LibraryList, { target, props });
    flushSync();
    const el = target.querySelector<HTMLElement>("#library-list")!;
    expect(target.querySelectorAll(".lib-row").length).toBeLessThan(30);
    expect(target.querySelector(".lib-row .lib-title")?.textContent).toBe("Page 0");

    el.focus();
    el.scrollTop = 340;
    // A job finished: the library is read again, with one page more.
    props.rows = [...props.rows, { id: pid(10_000), entry: entry(10_000) }];
    flushSync();
    expect(target.querySelector("#library-list")).toBe(el);
    expect(el.scrollTop).toBe(340);
    expect(document.activeElement).toBe(el);

    unmount(list);
    expect(screenKeys.move).toBeUndefined();
    target.remove();
  });

  it("moves the selection with the window's keys while it is mounted", () => {
    app.selected = 0;
    const target = document.createElement("div");
    const list = mount(LibraryList, { target, props: { rows: [0, 1, 2].map((i) => ({ id: pid(i), entry: entry(i) })) } });
    flushSync();
    screenKeys.move?.(1);
    flushSync();
    expect(target.querySelector(".lib-row.selected")?.getAttribute("data-id")).toBe("1");
    screenKeys.move?.(5);
    flushSync();
    expect(app.selected).toBe(2);
    unmount(list);
  });

  it("shows the folder the core gives a page told apart by it, and none for the others", () => {
    const target = document.createElement("div");
    const rows = [
      { id: pid(1), entry: { ...entry(1), title: "Parser/constructor", folder: "src/Parser" } },
      { id: pid(2), entry: entry(2) },
    ];
    const list = mount(LibraryList, { target, props: { rows } });
    flushSync();
    const folders = [...target.querySelectorAll(".lib-row")].map((r) => r.querySelector(".lib-folder")?.textContent ?? null);
    expect(folders).toEqual(["in src/Parser/", null]);
    unmount(list);
  });
});

describe("components", () => {
  it("put text in as text, never as markup", () => {
    const target = document.createElement("ul");
    const hostile = "<img src=x onerror=alert(1)>";
    const c = { claim: hostile, confidence: "sourced" as const, quote: hostile, grounded: false, quote_not_found: true, page: { title: hostile, page_id: pid(3) } };
    const claim = mount(CitedClaim, { target, props: { c } });
    flushSync();
    expect(target.querySelector("img")).toBeNull();
    expect(target.querySelector(".claim-text")?.textContent).toBe(hostile);
    expect(target.querySelector(".cited-page")?.textContent).toBe(hostile);
    expect(target.querySelector(".cited-claim")?.classList.contains("not-found")).toBe(true);
    void unmount(claim);
    expect(target.children.length).toBe(0);
  });
});

const source = (id: number, origin: string, path: string | null): PageSourceView => ({
  source_id: sid(id),
  article_id: id as ArticleId,
  title: "constructor",
  origin,
  final_url: null,
  compiled_at: "2026-11-25T00:00:00Z",
  provider: "ollama",
  model: "m",
  path,
});

const version = (v: number, claimsLeft: ListedVersion["claims_left"]): ListedVersion => ({
  version: v,
  title: "Espresso",
  author: "ollama:m",
  author_kind: "model",
  provider: "ollama",
  model: "m",
  restored_from: null,
  change: null,
  created_at: "2026-11-25T00:00:00Z",
  label: "ollama:m",
  claims_left: claimsLeft,
});

/** A page with what the side column and the history read; the rest left empty. */
const page = (sources: PageSourceView[], history: ListedVersion[]): PageView =>
  ({
    id: 1,
    kind: "topic",
    title: "constructor",
    claims: [],
    links: [],
    backlinks: [],
    concepts: [],
    sources,
    history,
    version: history.length,
  }) as unknown as PageView;

describe("the page screen's panels", () => {
  it("tell sources that share a file name apart by the path the core gives", () => {
    const target = document.createElement("div");
    const p = page(
      [
        source(1, "/v/src/Parser/constructor.md", "src/Parser/constructor.md"),
        source(2, "/v/src/Lexer/constructor.md", "src/Lexer/constructor.md"),
        source(3, "https://example.org/a", null),
      ],
      [version(1, [])],
    );
    const side = mount(PageSide, { target, props: { page: p } });
    flushSync();
    const origins = [...target.querySelectorAll("#sources .origin")].map((o) => o.textContent);
    expect(origins).toEqual(["src/Parser/constructor.md", "src/Lexer/constructor.md", "https://example.org/a"]);
    unmount(side);
  });

  it("say in the history which claims left a full page, and why", () => {
    const target = document.createElement("div");
    const left = [
      { claim: "Old claim one.", quote: "one", source_ids: [sid(1)], why: "the page was full (50 claims)" },
      { claim: "Old claim two.", quote: null, source_ids: [sid(2)], why: "the page was full (50 claims)" },
    ];
    const history = mount(PageHistory, {
      target,
      props: { page: page([], [version(1, []), version(2, left)]), signal: new AbortController().signal },
    });
    flushSync();
    const rows = [...target.querySelectorAll(".history .version")];
    expect(rows.map((r) => r.getAttribute("data-version"))).toEqual(["2", "1"]);
    expect(rows[0].querySelector(".claims-left summary")?.textContent).toContain("2 claims left the full page");
    expect([...rows[0].querySelectorAll(".claim-left .claim-text")].map((c) => c.textContent)).toEqual([
      "Old claim one.",
      "Old claim two.",
    ]);
    expect(rows[0].querySelector(".claim-left .why")?.textContent).toContain("the page was full");
    expect(rows[1].querySelector(".claims-left")).toBeNull();
    unmount(history);
  });
});
