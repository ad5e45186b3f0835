// The Notes screen in jsdom, its commands answered here: what a person sees of a note's
// status when a compile finishes, and of saving as they type.
import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { NoteItemView, SourceId } from "./bindings";

const state = vi.hoisted(() => ({ status: "pending" as string, saved: [] as string[], compiled: [] as number[] }));
vi.mock("./bindings", () => {
  const item = (): NoteItemView => ({
    note_id: "abc",
    source_id: 7 as SourceId,
    title: "Grind Size",
    status: state.status as NoteItemView["status"],
    updated_at: "2026-11-25T00:00:00Z",
  });
  return {
    commands: {
      notes: async () => [item()],
      note: async () => ({ item: item(), text: "# Grind Size\n" }),
      save_note: async (_id: string, text: string) => (state.saved.push(text), item()),
      compile: async (ids: number[]) => (state.compiled.push(...ids), 1),
      link_names: async () => [],
      preview: async () => "",
    },
  };
});

import Notes from "./screens/Notes.svelte";
import { sourcesChanged } from "./state.svelte";

afterEach(() => vi.useRealTimers());

async function settle(ms: number) {
  await vi.advanceTimersByTimeAsync(ms);
  flushSync();
  await tick();
}

describe("the Notes screen", () => {
  it("shows a note's new status when a compile finishes, and saves then compiles when typing pauses", async () => {
    vi.useFakeTimers();
    const target = document.createElement("div");
    document.body.append(target);
    const screen = mount(Notes, { target, props: { signal: new AbortController().signal, id: "abc" } });
    await settle(50);
    expect(target.querySelector("#notes-list")?.textContent).toContain("pending");

    // Typing: saved after a pause, compiled after a longer one.
    const area = target.querySelector<HTMLTextAreaElement>("#note-editor")!;
    area.value = "# Grind Size\n\nFine.\n";
    area.dispatchEvent(new Event("input", { bubbles: true }));
    await settle(800);
    expect(state.saved).toEqual(["# Grind Size\n\nFine.\n"]);
    expect(state.compiled).toEqual([]);
    await settle(2600);
    expect(state.compiled).toEqual([7]);

    // The compile finished: the list and the bar follow.
    state.status = "compiled";
    sourcesChanged();
    await settle(300);
    expect(target.querySelector("#notes-list")?.textContent).toContain("compiled");
    expect(target.querySelector("#note-saved")?.textContent).toContain("compiled");
    unmount(screen);
    target.remove();
  });
});
