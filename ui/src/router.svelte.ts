// Where the person is: the history of screens, and which mount of a screen is current.
// Every navigation mounts a fresh screen (see Screen.svelte), whose AbortSignal is aborted
// when it unmounts: a reply for a screen the person has left is then dropped.
import { forScreen, History, sameScreen, type Screen } from "./logic";
import { say } from "./state.svelte";

const history = new History<Screen>(sameScreen);
history.push({ kind: "library" });

export const nav = $state({
  screen: { kind: "library" } as Screen,
  /** Numbers screen mounts: a new one remounts the screen, even on the same place. */
  mount: 0,
  canBack: false,
  canForward: false,
});

function show() {
  nav.screen = history.current ?? { kind: "library" };
  nav.canBack = history.canBack;
  nav.canForward = history.canForward;
  nav.mount++;
}

/** Goes to `screen` (clicking where one is reloads it). */
export function go(screen: Screen): void {
  history.push(screen);
  show();
}

export function back(): void {
  if (!history.canBack) return;
  history.back();
  show();
}

export function forward(): void {
  if (!history.canForward) return;
  history.forward();
  show();
}

/** Mounts the current screen again, with fresh data. */
export function reload(): void {
  show();
}

/** Whether `kind` is the screen on show. */
export function showing(kind: Screen["kind"]): boolean {
  return nav.screen.kind === kind;
}

/** Awaits a command for the screen whose mount `signal` belongs to: `undefined` when it
 * failed (said in the status line) or when the person has left that screen (dropped). */
export async function load<T>(signal: AbortSignal, what: string, p: Promise<T>): Promise<T | undefined> {
  const r = await forScreen(signal, p);
  if (r.kind === "value") return r.value;
  if (r.kind === "error") say(`${what}: ${String(r.error)}`, true);
  return undefined;
}

/** Keys the screen on show handles (the library's list: move and open). */
export const screenKeys: { move?: (delta: number) => void; open?: () => void } = {};

/** Reads data for a screen as it mounts, then again in place each time `version()` changes,
 * once a burst of changes has settled (`settle` ms). Call while the screen initialises. */
export function loadEach<T>(
  signal: AbortSignal,
  what: string,
  version: () => number,
  read: () => Promise<T>,
  set: (value: T) => void,
  settle = 150,
): void {
  let wait = 0;
  $effect(() => {
    version();
    const timer = setTimeout(async () => {
      const value = await load(signal, what, read());
      if (value !== undefined) set(value);
    }, wait);
    wait = settle;
    return () => clearTimeout(timer);
  });
}
