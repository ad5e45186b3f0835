import { describe, expect, it, vi } from "vitest";
import { completeLink, completions, highlight, linkQuery, pauses } from "./editor";

const joined = (text: string) => highlight(text).map((t) => t.text).join("");
const classOf = (text: string, part: string) => highlight(text).find((t) => t.text.includes(part))?.cls;

describe("highlight", () => {
  it("gives back the text letter for letter, whatever it holds", () => {
    const texts = [
      "",
      "\n",
      "# Title\n\nA [[Link|shown]] and `code` and **bold** and *em* #tag.\n",
      "```\n# not a heading\n[[not a link]]\n```\nafter\n",
      "- item [[A]]\n1. one\n> quote\n",
      "unclosed [[link and ** stars _ and ` tick",
      "日本語の[[ページ]]と #タグ\r\nCRLF",
      "~~~\nopen fence to the end",
    ];
    for (const t of texts) expect(joined(t)).toBe(t);
  });

  it("colours headings, links, code, emphasis, tags, lists and quotes", () => {
    const text = "## Grind\n\nSee [[Burr Grinder#Setup|burrs]], `12 clicks`, **fine**, *even* #coffee/tools.\n- step\n> said\n";
    expect(classOf(text, "## Grind")).toBe("md-heading");
    expect(classOf(text, "[[Burr Grinder")).toBe("md-wikilink");
    expect(classOf(text, "`12 clicks`")).toBe("md-code");
    expect(classOf(text, "**fine**")).toBe("md-strong");
    expect(classOf(text, "*even*")).toBe("md-em");
    expect(classOf(text, "#coffee/tools")).toBe("md-tag");
    expect(classOf(text, "- ")).toBe("md-list");
    expect(classOf(text, "> said")).toBe("md-quote");
  });

  it("reads nothing inside a code fence as markdown", () => {
    const tokens = highlight("```\n[[A]] **b**\n```\n");
    expect(tokens.every((t) => t.cls === "md-code" || t.text === "")).toBe(true);
  });

  it("is no tag in the middle of a word, nor a heading's hash", () => {
    expect(classOf("C#sharp and a#b", "#")).toBe("");
    expect(classOf("# Heading", "#")).toBe("md-heading");
  });
});

describe("[[ completion", () => {
  const names = [
    { name: "Espresso", title: "Espresso" },
    { name: "espresso machine", title: "Espresso Machine" },
    { name: "Cold Brew", title: "Cold Brew" },
    { name: "Brewing espresso", title: "Espresso" },
  ];

  it("knows the link being typed, on its line only", () => {
    expect(linkQuery("See [[Esp", 9)).toEqual({ start: 6, query: "Esp" });
    expect(linkQuery("See [[", 6)).toEqual({ start: 6, query: "" });
    expect(linkQuery("See [[Esp]] x", 13)).toBeNull();
    expect(linkQuery("[[A|shown", 9)).toBeNull();
    expect(linkQuery("[[A\nnext", 8)).toBeNull();
    expect(linkQuery("plain", 5)).toBeNull();
  });

  it("offers names starting with what is typed first, then names holding it", () => {
    expect(completions(names, "esp").map((n) => n.name)).toEqual(["Espresso", "espresso machine", "Brewing espresso"]);
    expect(completions(names, "BREW").map((n) => n.name)).toEqual(["Brewing espresso", "Cold Brew"]);
    expect(completions(names, "").length).toBe(4);
    expect(completions(names, "zzz")).toEqual([]);
    expect(completions(names, "", 2).length).toBe(2);
  });

  it("completes the name and closes the link once", () => {
    expect(completeLink("See [[Esp", 6, 9, "Espresso")).toEqual({ text: "See [[Espresso]]", caret: 16 });
    expect(completeLink("See [[Esp]] now", 6, 9, "Espresso")).toEqual({ text: "See [[Espresso]] now", caret: 16 });
  });
});

describe("pauses", () => {
  it("saves once after typing pauses, then runs what follows after a longer pause", async () => {
    vi.useFakeTimers();
    const save = vi.fn(async () => undefined);
    const after = vi.fn();
    const p = pauses(save, 500, after, 2000);
    p.typed();
    vi.advanceTimersByTime(300);
    p.typed();
    vi.advanceTimersByTime(300);
    expect(save).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(200);
    expect(save).toHaveBeenCalledTimes(1);
    expect(after).not.toHaveBeenCalled();
    // Typing again before the longer pause ends puts off what follows.
    p.typed();
    await vi.advanceTimersByTimeAsync(500);
    expect(save).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(after).toHaveBeenCalledTimes(1);
    vi.useRealTimers();
  });

  it("flush saves what waits at once, and nothing when nothing waits", async () => {
    const save = vi.fn(async () => undefined);
    const p = pauses(save, 10_000);
    await p.flush();
    expect(save).not.toHaveBeenCalled();
    p.typed();
    expect(p.pending).toBe(true);
    await p.flush();
    expect(save).toHaveBeenCalledTimes(1);
    expect(p.pending).toBe(false);
  });
});
