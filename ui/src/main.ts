// The WikiMind window: mounts the app (App.svelte) into the page. Its CSS is extracted into
// files at build time (the CSP allows no inline style), and it starts no worker.
import { mount } from "svelte";
import App from "./App.svelte";
import { commands } from "./bindings";
import { readLibraryFirst } from "./state.svelte";
import "./style.css";

// The library opens first: its first screen is asked for before anything is drawn, and
// waited for a quarter of a second at most (a wiki being upgraded answers later).
void readLibraryFirst(() => commands.library("title", null), 250).finally(() => mount(App, { target: document.body }));
