// The markdown editor's rules, kept apart from the DOM so they are unit-tested: how a text
// is coloured (spans that together are exactly the text, so the colouring lies under the
// textarea letter for letter), which `[[` link is being typed, what completing it writes,
// and when a pause in typing saves and compiles.

/** A run of text and how it is coloured ("" for plain). */
export type Token = { text: string; cls: string };

const INLINE = [
  // Wiki links and embeds: [[Target#Heading|shown]], ![[note]].
  { re: /!?\[\[[^\]\n]*\]\]/y, cls: "md-wikilink" },
  // Inline code.
  { re: /`[^`\n]+`/y, cls: "md-code" },
  // Markdown links: [text](url).
  { re: /\[[^\]\n]*\]\([^)\n]*\)/y, cls: "md-link" },
  // Strong, then emphasis.
  { re: /(\*\*|__)(?=\S)[^\n]*?\S\1/y, cls: "md-strong" },
  { re: /(\*|_)(?=\S)[^*_\n]*?\S\1/y, cls: "md-em" },
  // Tags: #tag, #nested/tag (not a heading's #, which starts a line and is followed by a space).
  { re: /#[\p{L}\p{N}_/-]*\p{L}[\p{L}\p{N}_/-]*/uy, cls: "md-tag" },
];

/** Adds `text` to `out` as one token of `cls`, merged with the last when they share it. */
function push(out: Token[], text: string, cls: string) {
  if (!text) return;
  const last = out[out.length - 1];
  if (last && last.cls === cls) last.text += text;
  else out.push({ text, cls });
}

/** The inline tokens of one line (no line break in it). */
function inline(line: string, out: Token[]) {
  let plain = "";
  let i = 0;
  outer: while (i < line.length) {
    const c = line[i];
    if (c === "[" || c === "!" || c === "`" || c === "*" || c === "_" || c === "#") {
      // A tag's # only after a space or at the start.
      const tagOk = c !== "#" || i === 0 || /\s/.test(line[i - 1]);
      for (const { re, cls } of INLINE) {
        if (cls === "md-tag" && !tagOk) continue;
        re.lastIndex = i;
        const m = re.exec(line);
        if (m && m.index === i && m[0].length) {
          push(out, plain, "");
          plain = "";
          push(out, m[0], cls);
          i += m[0].length;
          continue outer;
        }
      }
    }
    plain += c;
    i++;
  }
  push(out, plain, "");
}

/** The coloured runs of `text`: joined, they are `text` exactly. */
export function highlight(text: string): Token[] {
  const out: Token[] = [];
  let fence: string | null = null;
  const lines = text.split("\n");
  lines.forEach((line, n) => {
    const trimmed = line.trimStart();
    const open = /^(```+|~~~+)/.exec(trimmed);
    if (fence !== null) {
      push(out, line, "md-code");
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
    } else if (open) {
      fence = open[1];
      push(out, line, "md-code");
    } else if (/^#{1,6}(\s|$)/.test(trimmed)) {
      push(out, line, "md-heading");
    } else if (/^>/.test(trimmed)) {
      push(out, line, "md-quote");
    } else {
      const list = /^(\s*)([-*+]|\d+[.)])(\s+)/.exec(line);
      if (list) {
        push(out, list[0], "md-list");
        inline(line.slice(list[0].length), out);
      } else inline(line, out);
    }
    if (n < lines.length - 1) push(out, "\n", out[out.length - 1]?.cls ?? "");
  });
  return out;
}

/** The `[[` link being typed at `caret`: where its name starts and what is typed of it, or
 * null when the caret is not inside an open `[[` on its line. */
export function linkQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const m = /\[\[([^\[\]|#\n]*)$/.exec(before);
  if (!m) return null;
  return { start: caret - m[1].length, query: m[1] };
}

/** The names offered for `query`: those starting with it first, then those holding it,
 * compared without case; each name once, at most `limit`. */
export function completions<T extends { name: string }>(names: T[], query: string, limit = 8): T[] {
  const q = query.trim().toLowerCase();
  const seen = new Set<string>();
  const starts: T[] = [];
  const holds: T[] = [];
  for (const n of names) {
    const key = n.name.toLowerCase();
    if (seen.has(key)) continue;
    if (key.startsWith(q)) starts.push(n);
    else if (q && key.includes(q)) holds.push(n);
    else continue;
    seen.add(key);
  }
  const byName = (a: T, b: T) => a.name.localeCompare(b.name);
  return [...starts.sort(byName), ...holds.sort(byName)].slice(0, limit);
}

/** `text` with the link typed from `start` to `caret` completed to `name`: the closing `]]`
 * is written unless it follows already. Returns the text and where the caret goes. */
export function completeLink(text: string, start: number, caret: number, name: string): { text: string; caret: number } {
  const rest = text.slice(caret);
  const closes = rest.startsWith("]]");
  const insert = closes ? name : `${name}]]`;
  const next = text.slice(0, start) + insert + rest;
  return { text: next, caret: start + name.length + 2 };
}

/** Runs `save` once typing has paused for `wait` ms, and `after` (when given) once it has
 * paused for `wait + afterWait` ms; `flush` saves at once what waits (leaving a screen). */
export function pauses(save: () => Promise<unknown>, wait: number, after?: () => void, afterWait = 0) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let later: ReturnType<typeof setTimeout> | undefined;
  let pending = false;
  const run = async () => {
    pending = false;
    await save();
    if (after) later = setTimeout(after, afterWait);
  };
  return {
    /** Typing happened. */
    typed() {
      pending = true;
      clearTimeout(timer);
      clearTimeout(later);
      timer = setTimeout(() => void run(), wait);
    },
    /** Saves now what waits (nothing when nothing was typed since the last save). */
    async flush() {
      clearTimeout(timer);
      if (pending) await run();
    },
    /** Whether typing waits to be saved. */
    get pending() {
      return pending;
    },
    /** Forgets what waits. */
    cancel() {
      clearTimeout(timer);
      clearTimeout(later);
      pending = false;
    },
  };
}
