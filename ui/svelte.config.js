// Read by svelte-check and editors; the build's options are in vite.config.ts.
import { vitePreprocess } from "@sveltejs/vite-plugin-svelte";

export default {
  preprocess: vitePreprocess(),
  compilerOptions: { css: "external", runes: true },
};
