// A small W3C WebDriver client over fetch, plus helpers to run the real app through
// tauri-driver (which starts WebKitWebDriver, which starts the app).
import { execFileSync, spawn } from "node:child_process";
import { openSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** Starts tauri-driver with `env` (the app inherits it); output goes to `logFile`. */
export async function startDriver(env, logFile, port = 4444) {
  const base = `http://127.0.0.1:${port}`;
  // A driver already there (one an earlier run left behind) would answer in this one's
  // place and start its own app: said at once, with the process that holds the port.
  if (await answers(base)) {
    throw new Error(
      `something already listens on port ${port} (${portHolder(port)}): another tauri-driver, ` +
        "perhaps left behind by an interrupted run; stop it and run again",
    );
  }
  const log = openSync(logFile, "a");
  const child = spawn(process.env.TAURI_DRIVER ?? "tauri-driver", ["--port", String(port)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", log, log],
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  for (let i = 0; i < 100 && !ended(); i++) {
    if (await answers(base)) return { child, base };
    await sleep(100);
  }
  const how = child.signalCode ?? (child.exitCode === null ? null : `code ${child.exitCode}`);
  child.kill("SIGTERM");
  throw new Error(`tauri-driver ${how === null ? "did not start" : `exited (${how})`} (see ${logFile})`);
}

/** Whether a WebDriver server answers at `base` (within a second). */
async function answers(base) {
  try {
    return (await fetch(`${base}/status`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** The process listening on `port`, as `ss` names it ("unknown" when it cannot tell). */
function portHolder(port) {
  try {
    const line = execFileSync("ss", ["-Hltnp", `sport = :${port}`], { encoding: "utf8" }).trim();
    return line.match(/users:\(\((.*)\)\)/)?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** Stops tauri-driver with SIGTERM (SIGKILL would orphan WebKitWebDriver). */
export async function stopDriver(driver) {
  if (!driver || driver.child.exitCode !== null) return;
  const done = new Promise((r) => driver.child.once("exit", r));
  driver.child.kill("SIGTERM");
  await Promise.race([done, sleep(5000)]);
}

async function call(base, method, path, body) {
  const r = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}

export class Session {
  static async start(base, application) {
    const v = await call(base, "POST", "/session", {
      capabilities: { alwaysMatch: { "tauri:options": { application } } },
    });
    return new Session(base, v.sessionId);
  }
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }
  cmd(method, path, body) {
    return call(this.base, method, `/session/${this.id}${path}`, body);
  }
  async quit() {
    await this.cmd("DELETE", "").catch(() => undefined);
  }
  async find(css) {
    const v = await this.cmd("POST", "/element", { using: "css selector", value: css });
    return v[ELEMENT];
  }
  async findAll(css) {
    const v = await this.cmd("POST", "/elements", { using: "css selector", value: css });
    return v.map((e) => e[ELEMENT]);
  }
  /** Waits until `css` matches an element (and `pred(text)` holds for its text). */
  async wait(css, { timeout = 20000, text } = {}) {
    const until = Date.now() + timeout;
    let last = "";
    while (Date.now() < until) {
      try {
        const el = await this.find(css);
        const t = await this.text(el);
        last = t;
        if (!text || text(t)) return el;
      } catch {
        /* not there yet */
      }
      await sleep(150);
    }
    throw new Error(`timed out waiting for ${css} (last text: ${JSON.stringify(last)})`);
  }
  /** Waits until one of the elements matching `css` has text for which `pred` holds. */
  async waitAny(css, pred, timeout = 20000) {
    const until = Date.now() + timeout;
    let seen = [];
    while (Date.now() < until) {
      seen = [];
      for (const el of await this.findAll(css)) {
        // textContent: WebKitWebDriver reports "" as the text of the virtualised rows
        // (absolutely placed, transformed), though they are on screen and clickable.
        const t = await this.exec("return arguments[0].textContent", [{ [ELEMENT]: el }]).catch((e) => `<${e.message}>`);
        seen.push(t);
        if (pred(t)) return el;
      }
      await sleep(150);
    }
    throw new Error(`timed out waiting for a ${css} with the expected text (saw ${JSON.stringify(seen)})`);
  }
  /** Sets a field's value as if typed (WebDriver typing drops newlines in WebKitGTK). */
  async fill(css, value) {
    await this.wait(css);
    await this.exec(
      "const el = document.querySelector(arguments[0]); el.value = arguments[1]; el.dispatchEvent(new Event('input', { bubbles: true }));",
      [css, value],
    );
  }
  async waitCount(css, n, timeout = 30000) {
    const until = Date.now() + timeout;
    let count = 0;
    while (Date.now() < until) {
      count = (await this.findAll(css)).length;
      if (count >= n) return count;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${n} × ${css} (saw ${count})`);
  }
  text(el) {
    return this.cmd("GET", `/element/${el}/text`);
  }
  click(el) {
    return this.cmd("POST", `/element/${el}/click`, {});
  }
  async clickOn(css, opts) {
    return this.click(await this.wait(css, opts));
  }
  async type(css, text) {
    const el = await this.wait(css);
    await this.cmd("POST", `/element/${el}/clear`, {}).catch(() => undefined);
    await this.cmd("POST", `/element/${el}/value`, { text });
    return el;
  }
  exec(script, args = []) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }
  async screenshot() {
    return Buffer.from(await this.cmd("GET", "/screenshot"), "base64");
  }
}
