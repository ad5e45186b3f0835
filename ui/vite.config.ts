import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vite";

// The Tauri window loads the built files (ui/dist) in release and test builds; `npm run dev`
// serves them on the port tauri.conf.json's devUrl names. Svelte's CSS is emitted as files
// (emitCss, `css: "external"`): the CSP's `style-src 'self'` allows no injected <style>.
export default defineConfig(({ mode }) => ({
  clearScreen: false,
  plugins: [svelte({ emitCss: true, compilerOptions: { css: "external", runes: true } })],
  server: { port: 5173, strictPort: true },
  build: { target: "safari15", outDir: "dist", emptyOutDir: true, sourcemap: false, modulePreload: { polyfill: false } },
  // Vitest mounts components in jsdom: Svelte's browser build, not its server one.
  resolve: mode === "test" ? { conditions: ["browser"] } : undefined,
  test: { environment: "jsdom", include: ["src/**/*.test.ts", "src/**/*.test.svelte.ts"] },
}));
