// The watched folders part of Settings, mounted in jsdom: what a person would notice of
// each folder's state, and what the controls ask for.
import { flushSync, mount, unmount } from "svelte";
import { describe, expect, it } from "vitest";
import type { WatchedView } from "./bindings";
import WatchedFolders from "./parts/WatchedFolders.svelte";

function render(view: WatchedView) {
  const asked: string[] = [];
  const target = document.createElement("div");
  document.body.append(target);
  const part = mount(WatchedFolders, {
    target,
    props: {
      view,
      onadd: (p: string) => asked.push(`add ${p}`),
      onpick: () => asked.push("pick"),
      onremove: (p: string) => asked.push(`remove ${p}`),
    },
  });
  flushSync();
  return {
    target,
    asked,
    done: () => {
      unmount(part);
      target.remove();
    },
  };
}

describe("watched folders", () => {
  it("shows each folder with its state, the note and the last change, as text", () => {
    const hostile = "/notes/<img src=x onerror=alert(1)>";
    const { target, done } = render({
      folders: [
        { path: hostile, state: "watching" },
        { path: "/mnt/usb/notes", state: "paused" },
      ],
      note: null,
      last: `added ${hostile}/tea.md`,
      seq: 3,
    });
    const rows = [...target.querySelectorAll(".watched-folder")];
    expect(rows.map((r) => r.querySelector(".watched-path")?.textContent)).toEqual([hostile, "/mnt/usb/notes"]);
    expect(rows.map((r) => r.getAttribute("data-state"))).toEqual(["watching", "paused"]);
    expect(rows[1].querySelector(".watched-state")?.textContent).toContain("gone");
    expect(target.querySelector("img")).toBeNull();
    expect(target.querySelector("#watch-last")?.textContent).toBe(`Last change: added ${hostile}/tea.md`);
    expect(target.querySelector("#watch-note")).toBeNull();
    done();
  });

  it("says why nothing is watched while another process watches the wiki", () => {
    const note = "another WikiMind process (pid 42 on here) is watching this wiki's folders";
    const { target, done } = render({ folders: [{ path: "/notes", state: "waiting" }], note, last: null, seq: 1 });
    expect(target.querySelector("#watch-note")?.textContent).toBe(note);
    expect(target.querySelector(".watched-state")?.textContent).toBe("not watched now");
    done();
  });

  it("asks to add a typed folder (trimmed, once), to pick one, and to remove one", () => {
    const { target, asked, done } = render({ folders: [{ path: "/notes", state: "watching" }], note: null, last: null, seq: 1 });
    const input = target.querySelector<HTMLInputElement>("#watch-path")!;
    input.value = "  /more/notes  ";
    input.dispatchEvent(new Event("input"));
    target.querySelector<HTMLButtonElement>("#watch-add")!.click();
    flushSync();
    expect(input.value).toBe("");
    target.querySelector<HTMLButtonElement>("#watch-add")!.click();
    target.querySelector<HTMLButtonElement>("#watch-pick")!.click();
    target.querySelector<HTMLButtonElement>(".watch-remove")!.click();
    expect(asked).toEqual(["add /more/notes", "pick", "remove /notes"]);
    done();
  });

  it("says what watching does when no folder is watched", () => {
    const { target, done } = render({ folders: [], note: null, last: null, seq: 1 });
    expect(target.querySelector("#watched-none")?.textContent).toContain("renamed ones keep their pages");
    done();
  });
});
