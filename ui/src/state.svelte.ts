// The one store of the window's state. Screens read it and call the functions here; only
// what a screen shows of it is repainted when it changes (Svelte's fine-grained updates).
import type {
  AnswerView,
  AskProgress,
  ConnectionCheck,
  GraphFilter,
  GraphLayoutView,
  JobProgress,
  LibrarySort,
  LibraryView,
  ReadingProgress,
  SearchResult,
  SourceId,
  SettingsView,
} from "./bindings";

/** What the core sent is kept as it came (`$state.raw`: replaced whole, never proxied deep,
 * so ten thousand library entries cost nothing until painted); what the window itself edits
 * in place (the question being asked) is deep state. */
class Store {
  /** The library last read, shown while a newer one loads (never emptied to force a reload). */
  library = $state.raw<LibraryView | null>(null);
  /** Bumped when pages may have changed (a job finished, a page restored, a source removed). */
  libraryVersion = $state(0);
  /** The `libraryVersion`, sort and tag `library` was read at. */
  libraryRead = $state.raw({ version: -1, sort: "title" as LibrarySort, tag: "" });
  sort = $state<LibrarySort>("title");
  /** The tag the library's topics are narrowed to, as picked ("": every topic); the core
   * narrows them (`library`). */
  tag = $state("");
  /** The search typed in the header, and its hits (null: no search, the library lists pages). */
  query = $state("");
  hits = $state.raw<SearchResult[] | null>(null);
  /** The selected row of the library list. */
  selected = $state(0);
  /** Bumped when sources may have changed (added, compiled, removed). */
  sourcesVersion = $state(0);
  /** The compile queue since the app started, one row per source and per page. */
  jobs = $state.raw<JobProgress[]>([]);
  models = $state.raw<string[]>([]);
  settings = $state.raw<SettingsView | null>(null);
  /** The status line; a new object each time, so the same message said twice shows again. */
  status = $state.raw({ message: "", error: false });
  /** The model's state over a wiki that has pages; null or fine: no banner. */
  banner = $state.raw<ConnectionCheck | null>(null);
  /** What opening the wiki did that a person should know (upgrade, backfills); empty: none. */
  notices = $state.raw<string[]>([]);
  /** The wiki's data is being brought up to this version (an upgrade's backfills). */
  upgrading = $state(false);
  /** While the wiki's database itself is being upgraded (the window opens before it): what
   * is being done, as the core says it; null otherwise. Nothing reads until it is done. */
  databaseUpgrade = $state<string | null>(null);
  /** Files dragged over the window. */
  drop = $state.raw({ active: false, count: 0 });
  /** The graph layout's state as the core last told it (GRAPH_EVENT). */
  graphLayout = $state.raw<GraphLayoutView | null>(null);
  /** The document being read as it is added, while it is (the `reading` event). */
  reading = $state.raw<ReadingProgress | null>(null);
  /** Bumped when the graph's stored layout changed (a layout ended). */
  graphVersion = $state(0);
  /** Where the Graph screen was, so it opens there again: the filters and colouring, and
   * each graph's camera (the whole graph under "all", a local graph under its page id). */
  graph = $state.raw<{
    filter: GraphFilter;
    colour: "kind" | "community";
    cameras: Record<string, { x: number; y: number; scale: number }>;
  }>({
    filter: { kind: null, tag: null, folder: null, orphans_only: false, show_wanted: true, community: null, limit: null, area: null },
    colour: "community",
    cameras: {},
  });
  /** The source whose "Recompile with another model" dialog is open. */
  recompile = $state<SourceId | null>(null);
  ask = $state({
    /** What is in the question box. */
    draft: "",
    /** The question asked last (trimmed), whose answer or progress is shown. */
    question: "",
    /** Whether its answer is being written. */
    running: false,
    /** Whether the person stopped it. */
    stopped: false,
    /** Its progress while the model answers. */
    progress: null as AskProgress | null,
    /** Its answer, once made. */
    answer: null as AnswerView | null,
    /** Why the command failed (not an answer's own error, which the answer carries). */
    failure: null as string | null,
    /** Numbers each question, so a late reply to an earlier one is ignored. */
    seq: 0,
  });
}

export const app = new Store();

/** Says `message` in the status line. */
export function say(message: string, error = false): void {
  app.status = { message, error };
}

/** Awaits a command that belongs to no screen; its failure is said in the status line. */
export async function attempt<T>(what: string, p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    say(`${what}: ${String(e)}`, true);
    return undefined;
  }
}

/** Pages may have changed: the library reloads (in place) when it is on screen or next shown. */
export function libraryChanged(): void {
  app.libraryVersion++;
}

/** Sources may have changed: the lists of sources reload in place. */
export function sourcesChanged(): void {
  app.sourcesVersion++;
}

/** The graph's layout changed: the Graph screen reloads in place. */
export function graphChanged(): void {
  app.graphVersion++;
}

/** Reads the library as the window first shows it (by title, every tag) with `read`, asked
 * for as the page starts, and waits for it at most `wait` ms: the window's first frame then
 * draws the rows (the core holds that read from the app's first moment), not a "Reading the
 * library…" frame that the rows replace a tenth of a second later. A read that fails or
 * comes later is left to the library screen, which reads it again as it mounts. */
export async function readLibraryFirst(read: () => Promise<LibraryView>, wait: number): Promise<void> {
  const version = app.libraryVersion;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, wait)));
  const lib = await Promise.race([read().catch(() => undefined), late]);
  clearTimeout(timer);
  if (!lib || app.library || app.libraryVersion !== version) return;
  app.library = lib;
  app.libraryRead = { version, sort: "title", tag: "" };
}
