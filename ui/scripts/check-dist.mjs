// Fails the build when ui/dist holds anything the window's CSP would refuse at run time
// (tauri.conf.json: `style-src 'self'` with no 'unsafe-inline', `worker-src 'none'`,
// `script-src 'self'`): an inline <style> or <script>, a style attribute in markup, code
// that injects a <style> element or a stylesheet, or starts a worker, or evaluates strings.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dist = new URL("../dist/", import.meta.url).pathname;
const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
const forbidden = {
  js: [/createElement\(\s*["'`]style["'`]\s*\)/, /\bnew\s+(Shared)?Worker\s*\(/, /serviceWorker\.register/, /\binsertRule\s*\(/, /adoptedStyleSheets/, /\bnew\s+Function\s*\(/, /\beval\s*\(/, /setAttribute\(\s*["'`]style["'`]/, /\bstyle\s*=\s*\\?["']/],
  html: [/<style[\s>]/i, /<script(?![^>]*\bsrc=)[^>]*>/i, /\sstyle\s*=/i, /\son[a-z]+\s*=/i],
};
const problems = [];
let css = 0;
for (const file of files(dist)) {
  const text = readFileSync(file, "utf8");
  const kind = file.endsWith(".js") ? "js" : file.endsWith(".html") ? "html" : null;
  if (file.endsWith(".css")) css++;
  for (const re of forbidden[kind] ?? []) if (re.test(text)) problems.push(`${file}: matches ${re}`);
}
if (!css) problems.push("no CSS file in dist: styles must be extracted at build time");
if (problems.length) {
  console.error(`ui/dist would break the CSP:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`ui/dist: no inline style or script, no worker, ${css} CSS file(s)`);
