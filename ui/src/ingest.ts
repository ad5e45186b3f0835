// Adding sources, from any screen (the Add screen, a drop on the window, a wanted page).
import { commands, type IngestView } from "./bindings";
import { ingestReport } from "./logic";
import { attempt, libraryChanged, say, sourcesChanged } from "./state.svelte";

/** Says what an ingest did; the lists of sources and the library reload in place. */
export function reportIngest(r: IngestView, queued = false): void {
  const { message, error } = ingestReport(r, queued);
  say(message, error);
  libraryChanged();
  sourcesChanged();
}

/** Adds files and folders by path. */
export async function addPaths(paths: string[]): Promise<void> {
  say(`Reading ${paths.length} item${paths.length === 1 ? "" : "s"}…`);
  const r = await attempt("Adding", commands.add_paths(paths));
  if (r) reportIngest(r);
}
