// The library asked for before the window is drawn (main.ts): the first frame has its rows,
// and a read that is not back in time is left to the library screen.
import { flushSync, mount, tick, unmount } from "svelte";
import { describe, expect, it, vi } from "vitest";
import type { LibraryView, ListedPage, PageId } from "./bindings";

vi.mock("./bindings", async (original) => (await import("./scripted-core")).scriptedBindings(original));
vi.mock("@tauri-apps/api/event", () => ({ listen: async () => () => undefined }));
vi.mock("@tauri-apps/api/webview", () => ({ getCurrentWebview: () => ({ onDragDropEvent: async () => () => undefined }) }));

const { default: App } = await import("./App.svelte");
const { pending } = await import("./scripted-core");
const { commands } = await import("./bindings");
const { app, readLibraryFirst } = await import("./state.svelte");

const espresso: ListedPage = {
  id: 7 as PageId,
  kind: "topic",
  title: "Espresso",
  summary: "Coffee under pressure.",
  summary_text: "Coffee under pressure.",
  updated_at: "2026-11-30T00:00:00Z",
  source_count: 2,
  stale: false,
  claims: { sourced: 2, inferred: 0, opinion: 0 },
  tags: [],
  flagged: null,
  folder: null,
};
const library: LibraryView = {
  counts: { sources: 2, pages: 1, answers: 0, wanted: 0 },
  entries: [espresso],
  topic_count: 1,
  tag: null,
  tags: [],
  wanted: [],
  health: null,
};
const names = () => pending.map((p) => p.name);
const take = (name: string) => pending.splice(pending.findIndex((p) => p.name === name), 1)[0];

describe("the library read before the first frame", () => {
  it("is in the window's first frame, and the library screen does not ask again", async () => {
    const first = readLibraryFirst(() => commands.library("title", null), 5000);
    expect(names()).toEqual(["library"]);
    const asked = take("library");
    expect(asked.args).toEqual(["title", null]);
    // Answered: it is kept for the first frame, read at the library's version by title.
    asked.answer(library);
    await first;
    expect(app.library?.entries.map((e) => e.title)).toEqual(["Espresso"]);
    expect(app.libraryRead).toEqual({ version: app.libraryVersion, sort: "title", tag: "" });

    const target = document.createElement("div");
    document.body.append(target);
    const window = mount(App, { target });
    flushSync();
    // Drawn at once, before any command is answered: no "Reading the library…" frame.
    expect(target.querySelector(".lib-row .lib-title")?.textContent).toBe("Espresso");
    expect(target.querySelector("#counts")?.textContent).toContain("1 page ·");
    for (let n = 0; n < 5; n++) await tick();
    await new Promise((r) => setTimeout(r, 0));
    expect(names()).not.toContain("library");
    unmount(window);
    target.remove();
  });

  it("leaves a read that is not back in time (or fails) to the library screen", async () => {
    app.library = null;
    pending.length = 0;
    let answerLate: (v: LibraryView) => void = () => undefined;
    await readLibraryFirst(() => new Promise<LibraryView>((r) => (answerLate = r)), 20);
    expect(app.library).toBeNull();
    await readLibraryFirst(() => Promise.reject(new Error("database is locked")), 1000);
    expect(app.library).toBeNull();
    // The window is drawn without it, and its library screen asks for the library itself.
    const target = document.createElement("div");
    document.body.append(target);
    const window = mount(App, { target });
    flushSync();
    expect(target.querySelector(".counts")?.textContent).toBe("Reading the library…");
    await new Promise((r) => setTimeout(r, 0));
    expect(names()).toContain("library");
    // The late answer changes nothing: the screen's own read is what shows.
    answerLate({ ...library, entries: [], topic_count: 0, counts: { ...library.counts, pages: 9 } });
    for (let n = 0; n < 5; n++) await tick();
    expect(app.library).toBeNull();
    take("library").answer(library);
    for (let n = 0; n < 5; n++) await tick();
    flushSync();
    expect(target.querySelector(".lib-row .lib-title")?.textContent).toBe("Espresso");
    unmount(window);
    target.remove();
  });

  it("is read again when a job ended before the window heard the queue's events", async () => {
    app.library = null;
    pending.length = 0;
    const first = readLibraryFirst(() => commands.library("title", null), 5000);
    take("library").answer(library);
    await first;
    const target = document.createElement("div");
    document.body.append(target);
    const window = mount(App, { target });
    flushSync();
    for (let n = 0; n < 5; n++) await tick();
    take("settings").answer({ provider: { kind: "ollama", base_url: "http://127.0.0.1:9", model: "m" }, fallbacks: [], pool: [], has_api_key: false, data_dir: "/data", config_file: null, applied: null, defaults: [], builtin: { available: false, model_file: null, model_dir: null, hint: "" } });
    for (let n = 0; n < 5; n++) await tick();
    take("opening").answer(null);
    for (let n = 0; n < 5; n++) await tick();
    // A source compiled while the window was being drawn: its pages are read again.
    const compiled = { kind: "source", source_id: 3, page_id: null, stage: "compiled", provider: "ollama", attempt: 1, received: 0, calls: 1, tokens_out: 10, title: "Grinder", message: null, article_id: null };
    take("jobs").answer([compiled]);
    for (let n = 0; n < 5; n++) await tick();
    await new Promise((r) => setTimeout(r, 300));
    expect(names()).toContain("library");
    unmount(window);
    target.remove();
  });
});
