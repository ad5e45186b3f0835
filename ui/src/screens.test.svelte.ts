// Components mounted in jsdom: what a person would notice of the library list and of the
// store-driven repaint, without the core.
import { flushSync, mount, unmount } from "svelte";
import { describe, expect, it } from "vitest";
import type { LibraryEntry } from "./bindings";
import CitedClaim from "./parts/CitedClaim.svelte";
import LibraryList, { type Row } from "./parts/LibraryList.svelte";
import { screenKeys } from "./router.svelte";
import { app } from "./state.svelte";

const entry = (id: number): LibraryEntry => ({
  id,
  kind: "topic",
  title: `Page ${id}`,
  summary: `About ${id}`,
  updated_at: "2026-11-25T00:00:00Z",
  source_count: 1,
  stale: false,
  sourced: 1,
  inferred: 0,
  opinion: 0,
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
    props.rows = [...props.rows, { id: 10_000, entry: entry(10_000) }];
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
    const list = mount(LibraryList, { target, props: { rows: [0, 1, 2].map((i) => ({ id: i, entry: entry(i) })) } });
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
      { id: 1, entry: { ...entry(1), title: "Parser/constructor", folder: "src/Parser" } },
      { id: 2, entry: entry(2) },
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
    const c = { claim: hostile, confidence: "sourced" as const, quote: hostile, grounded: false, quote_not_found: true, page: { title: hostile, page_id: 3 } };
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
