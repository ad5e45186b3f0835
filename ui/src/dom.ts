// Building DOM from data. Text always goes in as text nodes; the only HTML the app ever
// parses is a page or digest body from the core's sanitiser (setSafeHtml).

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>;

/** Creates an element: `attrs` keys starting with `on` become listeners, others attributes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/** Appends children, strings as text nodes. */
export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** Puts an article body into `el`. `html` must come from the core's renderer (the
 * `html` field of PageView and DigestView), which removed scripts, handlers and remote resources. */
export function setSafeHtml(el: Element, html: string): void {
  el.innerHTML = html;
}
