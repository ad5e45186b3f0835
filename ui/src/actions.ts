// Svelte actions: small pieces of DOM work tied to an element's lifetime.
import { openUrl } from "@tauri-apps/plugin-opener";
import { linkClick } from "./logic";
import { go } from "./router.svelte";
import { attempt } from "./state.svelte";

/** Sets inline style properties through the CSSOM (`el.style`), which the CSP's
 * `style-src 'self'` allows; never a `style` attribute, which it would refuse. */
export function css(el: HTMLElement, props: Record<string, string>) {
  const apply = (p: Record<string, string>) => {
    for (const [k, v] of Object.entries(p)) el.style.setProperty(k, v);
  };
  apply(props);
  return { update: apply };
}

/** Listens for `change` on the element itself: Svelte delegates `onchange` to the root,
 * which a change event dispatched without bubbling never reaches. */
export function changed(el: HTMLElement, handler: (value: string) => void) {
  let current = handler;
  const listener = () => current((el as HTMLSelectElement).value);
  el.addEventListener("change", listener);
  return {
    update: (h: typeof handler) => (current = h),
    destroy: () => el.removeEventListener("change", listener),
  };
}

/** Opens a native modal dialog as it mounts; `onclose` when it closes. */
export function modal(el: HTMLDialogElement, onclose: () => void) {
  el.addEventListener("close", onclose);
  el.showModal();
  return { destroy: () => el.removeEventListener("close", onclose) };
}

/** Follows a click inside rendered HTML (a page's, a digest's or an answer's body). */
export function followLink(e: MouseEvent): void {
  const link = (e.target as Element).closest("a");
  if (!link) return;
  e.preventDefault();
  const what = linkClick(link);
  if (what.kind === "page") go(what.anchor ? { kind: "page", id: what.id, anchor: what.anchor } : { kind: "page", id: what.id });
  else if (what.kind === "section") document.getElementById(what.anchor)?.scrollIntoView({ block: "start" });
  else if (what.kind === "wanted") go({ kind: "wanted", title: what.title });
  else if (what.kind === "external") void attempt("Opening the link", openUrl(what.url));
}
