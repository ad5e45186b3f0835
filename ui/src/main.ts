// The WikiMind window: mounts the app (App.svelte) into the page. Its CSS is extracted into
// files at build time (the CSP allows no inline style), and it starts no worker.
import { mount } from "svelte";
import App from "./App.svelte";
import "./style.css";

mount(App, { target: document.body });
