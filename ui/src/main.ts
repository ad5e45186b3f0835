// The WikiMind window: mounts the app (App.svelte) into the page. Its CSS is extracted into
// files at build time (the CSP allows no inline style), and it starts no worker.
import { mount } from "svelte";
import App from "./App.svelte";
import { commands } from "./bindings";
import { readLibraryFirst } from "./state.svelte";
import "./style.css";

// The library opens first: its first screen is asked for before anything is drawn, and
// waited for 150 ms at most (held by the core from the app's first moment, it comes back
// in 10–20 ms); a wiki that answers later (being upgraded, or not read yet) has the window
// drawn that much later, with "Reading the library…" or the upgrade's line as before.
void readLibraryFirst(() => commands.library("title", null), 150).finally(() => mount(App, { target: document.body }));
