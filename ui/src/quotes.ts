// Marking a quote where a person reads it on the open page (the page's rendered body, else
// its claims). The quote fold itself is the pure `quoteSpans` of logic.ts.
import { quoteSpans, sameQuote } from "./logic";

/** Marks `quote` on the open page: its body, else its claims. Returns the first mark, or
 * null when the page's text does not hold it. The claim whose quote it is gets marked too. */
export function markCitedQuote(quote: string): HTMLElement | null {
  for (const li of document.querySelectorAll<HTMLElement>("#claims .claim[data-quote]")) {
    if (sameQuote(li.dataset.quote ?? "", quote)) li.classList.add("cited");
  }
  for (const sel of ["#article-body", "#claims"]) {
    const root = document.querySelector(sel);
    if (!root) continue;
    const nodes: Text[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
    const spans = quoteSpans(
      nodes.map((n) => n.data),
      quote,
    );
    if (!spans) continue;
    let first: HTMLElement | null = null;
    for (const span of spans) {
      const node = nodes[span.piece];
      if (!node.data.slice(span.start, span.end).trim()) continue; // white space between blocks
      const range = document.createRange();
      range.setStart(node, span.start);
      range.setEnd(node, span.end);
      const mark = document.createElement("mark");
      mark.className = "cited-quote";
      range.surroundContents(mark);
      first ??= mark;
    }
    if (first) {
      first.id = "cited-quote-mark";
      return first;
    }
  }
  return null;
}
