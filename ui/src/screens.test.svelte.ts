// Components mounted in jsdom: what a person would notice of the library list and of the
// store-driven repaint, without the core.
import { flushSync, mount, unmount } from "svelte";
import { describe, expect, it } from "vitest";
import type { ArticleId, CitationPageView, ClaimView, ListedPage, ListedVersion, PageId, PageSourceView, PageView, PassageView, SourceId } from "./bindings";
import Claims from "./parts/Claims.svelte";
import CitationPage from "./parts/CitationPage.svelte";
import CitedClaim from "./parts/CitedClaim.svelte";
import LibraryList, { type Row } from "./parts/LibraryList.svelte";
import PageHistory from "./parts/PageHistory.svelte";
import PageSide from "./parts/PageSide.svelte";
import WantedList from "./parts/WantedList.svelte";
import { screenKeys } from "./router.svelte";
import { app } from "./state.svelte";

/** Ids as the core sends them (numbers branded by kind). */
const pid = (n: number) => n as PageId;
const sid = (n: number) => n as SourceId;

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

describe("the library's wanted pages", () => {
  it("are made only once their fold is opened, each a link with its mentions", () => {
    const target = document.createElement("div");
    document.body.append(target);
    const wanted = Array.from({ length: 200 }, (_, i) => ({ title: `Wanted ${i}`, mentions: 200 - i }));
    const list = mount(WantedList, { target, props: { wanted, count: 29910 } });
    flushSync();
    const fold = target.querySelector("details")!;
    expect(fold.querySelector("summary")!.textContent).toBe("Wanted pages (29910, the 200 most linked)");
    // Folded: nothing of the 200 rows is in the page.
    expect(target.querySelectorAll("li").length).toBe(0);
    fold.open = true;
    fold.dispatchEvent(new Event("toggle"));
    flushSync();
    const rows = [...target.querySelectorAll("li")];
    expect(rows.length).toBe(200);
    expect(rows[0].querySelector("a.wanted")!.textContent).toBe("Wanted 0");
    expect(rows[199].textContent).toContain("— 1 mention");
    expect(rows[199].textContent).not.toContain("mentions");
    fold.open = false;
    fold.dispatchEvent(new Event("toggle"));
    flushSync();
    expect(target.querySelectorAll("li").length).toBe(0);
    unmount(list);
    target.remove();
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

describe("a claim's citations", () => {
  const passage = (over: Partial<PassageView> = {}): PassageView => ({
    source_id: sid(7),
    start: 20,
    end: 38,
    title: "paper",
    place: "p. ii",
    before: "Physical page 2: ",
    quote: "PHYS2 garden field",
    after: " meadow <b>orchard</b>",
    more_before: false,
    more_after: true,
    pdf_page: 2,
    page_image_problem: null,
    file_exists: true,
    ...over,
  });
  const claim = (passages: PassageView[]): ClaimView => ({
    claim: "Page two names a garden.",
    hash: "h",
    confidence: "sourced",
    quote: "PHYS2 garden field",
    grounded: true,
    quote_not_found: false,
    source_ids: [sid(7)],
    cited_page: null,
    author: "model",
    cited: false,
    passages,
  });

  it("show the passage on keyboard focus, as text, and hide it on Escape", () => {
    const target = document.createElement("div");
    document.body.append(target);
    const c = mount(Claims, { target, props: { claims: [claim([passage()])], sources: [], showQuote: () => {} } });
    flushSync();
    const ref = target.querySelector<HTMLButtonElement>(".citation-ref")!;
    expect(ref.textContent).toBe("p. ii");
    expect(target.querySelector("#citation-popover")).toBeNull();
    ref.focus();
    flushSync();
    const pop = target.querySelector("#citation-popover")!;
    expect(pop.querySelector(".citation-title")?.textContent).toBe("paper");
    expect(pop.querySelector(".citation-place")?.textContent).toBe("p. ii");
    expect(pop.querySelector("mark.citation-quote")?.textContent).toBe("PHYS2 garden field");
    expect(pop.querySelector(".citation-passage")?.textContent).toBe("Physical page 2: PHYS2 garden field meadow <b>orchard</b>…");
    expect(pop.querySelector("b")).toBeNull();
    expect(ref.getAttribute("aria-describedby")).toBe("citation-popover");
    expect(target.querySelector<HTMLButtonElement>("#citation-show-page")?.disabled).toBe(false);
    ref.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    flushSync();
    expect(target.querySelector("#citation-popover")).toBeNull();
    expect(document.activeElement).toBe(ref);
    unmount(c);
    target.remove();
  });

  it("say why a PDF page cannot be shown, and offer no page for other sources", () => {
    const target = document.createElement("div");
    document.body.append(target);
    const missing = "The page image needs poppler-utils (`pdftoppm` is not installed).";
    const c = mount(Claims, {
      target,
      props: {
        claims: [claim([passage({ page_image_problem: missing }), passage({ place: "§ Rivers", pdf_page: null, file_exists: false })])],
        sources: [],
        showQuote: () => {},
      },
    });
    flushSync();
    const [pdf, note] = target.querySelectorAll<HTMLButtonElement>(".citation-ref");
    pdf.closest(".citation")!.dispatchEvent(new MouseEvent("mouseenter"));
    flushSync();
    expect(target.querySelector<HTMLButtonElement>("#citation-show-page")?.disabled).toBe(true);
    expect(target.querySelector("#citation-page-problem")?.textContent).toBe(missing);
    pdf.closest(".citation")!.dispatchEvent(new MouseEvent("mouseleave"));
    flushSync();
    expect(target.querySelector("#citation-popover")).toBeNull();
    note.focus();
    flushSync();
    expect(target.querySelectorAll("#citation-popover").length).toBe(1);
    expect(target.querySelector("#citation-popover .citation-place")?.textContent).toBe("§ Rivers");
    expect(target.querySelector("#citation-show-page")).toBeNull();
    unmount(c);
    target.remove();
  });

  it("draw the core's boxes over the page image in its pixels, and close on Escape", () => {
    const target = document.createElement("div");
    document.body.append(target);
    const view: CitationPageView = {
      source_id: sid(7),
      title: "paper",
      page: 2,
      page_label: "ii",
      image: "data:image/png;base64,iVBORw0KGgo=",
      width: 990,
      height: 1400,
      boxes: [{ x: 139, y: 128, width: 88, height: 20 }],
      changed: true,
      note: "The file changed since it was read: this page may not match the text the claim was grounded in.",
    };
    let closed = 0;
    const c = mount(CitationPage, { target, props: { view, onclose: () => closed++, onopenfile: () => {} } });
    flushSync();
    expect(target.querySelector("#citation-page .pane-head strong")?.textContent).toBe("paper, p. ii");
    expect(target.querySelector("#citation-page-image")?.getAttribute("src")).toBe(view.image);
    expect(target.querySelector(".citation-page-marks")?.getAttribute("viewBox")).toBe("0 0 990 1400");
    const rect = target.querySelector(".citation-box")!;
    expect(["x", "y", "width", "height"].map((a) => rect.getAttribute(a))).toEqual(["139", "128", "88", "20"]);
    expect(target.querySelector("#citation-page-note")?.textContent).toBe(view.note);
    target.querySelector("#citation-page")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(closed).toBe(1);
    unmount(c);
    target.remove();
  });
});
