// Fails when the front end's modules import each other in a circle (a screen importing a
// part that imports the screen, a store importing a component...): arrows point one way,
// from screens to parts to the store and the pure rules. Reads `import … from "./…"` in
// ui/src (.ts and .svelte), type-only imports included.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const src = new URL("../src/", import.meta.url).pathname;
const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|svelte)$/.test(e.name) && !/\.test\./.test(e.name) ? [join(dir, e.name)] : [],
  );
const all = files(src);
const known = new Set(all);
const edges = new Map();
for (const file of all) {
  const text = readFileSync(file, "utf8");
  const targets = [];
  for (const m of text.matchAll(/\bfrom\s+["'](\.{1,2}\/[^"']+)["']/g)) {
    const base = resolve(dirname(file), m[1]);
    const hit = [base, `${base}.ts`, join(base, "index.ts")].find((p) => known.has(p));
    if (hit) targets.push(hit);
  }
  edges.set(file, targets);
}
const state = new Map(); // 1: on the path, 2: done
const cycles = [];
const visit = (file, path) => {
  state.set(file, 1);
  for (const next of edges.get(file)) {
    if (state.get(next) === 1) cycles.push([...path.slice(path.indexOf(next)), next]);
    else if (!state.has(next)) visit(next, [...path, next]);
  }
  state.set(file, 2);
};
for (const file of all) if (!state.has(file)) visit(file, [file]);
if (cycles.length) {
  console.error(`ui/src imports in a circle:\n  ${cycles.map((c) => c.map((f) => relative(src, f)).join(" → ")).join("\n  ")}`);
  process.exit(1);
}
console.log(`ui/src: ${all.length} modules, no import circle`);
