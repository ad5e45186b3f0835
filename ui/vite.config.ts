import { defineConfig } from "vite";

// The Tauri window loads the built files (ui/dist) in release and test builds; `npm run dev`
// serves them on the port tauri.conf.json's devUrl names.
export default defineConfig({
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { target: "safari15", outDir: "dist", emptyOutDir: true, sourcemap: false },
  test: { environment: "jsdom", include: ["src/**/*.test.ts"] },
});
