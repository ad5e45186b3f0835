// What every end-to-end file starts from: the local model server, and a fresh home for the
// app (data dir, config) under a temp folder.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Session, startDriver, stopDriver } from "./webdriver.mjs";

/** Starts the test server `testserver` listing `models`; resolves to its process and base URL. */
export function startServer(testserver, models = ["--model", "e2e-model", "--model", "other-model"]) {
  return new Promise((resolve, reject) => {
    const child = spawn(testserver, ["--port", "0", ...models], { stdio: ["ignore", "pipe", "inherit"] });
    child.once("error", reject);
    createInterface({ input: child.stdout }).once("line", (url) => resolve({ child, url: url.trim() }));
  });
}

/** The environment of an app whose home is `name` under `tmp`, using the model server at `baseUrl`. */
export function wikiEnv(tmp, baseUrl, name) {
  const home = join(tmp, name);
  mkdirSync(join(home, "config"), { recursive: true });
  return {
    WIKIMIND_DATA_DIR: join(home, "data"),
    WIKIMIND_BASE_URL: baseUrl,
    WIKIMIND_PROVIDER: "ollama",
    WIKIMIND_MODEL: "e2e-model",
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "xdg-data"),
  };
}

/** Waits until `pred` holds for what `read` resolves to (polling); resolves to that value. */
export async function until(what, read, pred, timeout = 60000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await read();
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 400)})`);
}

/**
 * Opens the app for one end-to-end file: the test server `testserver` listing `models`, a
 * fresh home `name` under `tmp` (`prepare(env)` runs on it first and is awaited, to copy a
 * wiki in or take a lock on it, say),
 * tauri-driver logging to `log`, and a WebDriver session on the binary `app`. Resolves to
 * `{ s, server, driver, url }`; [`closeApp`] ends them.
 */
export async function openApp({ app, testserver, tmp, name, log, models, prepare }) {
  const started = await startServer(testserver, models);
  const env = wikiEnv(tmp, started.url, name);
  await prepare?.(env);
  const driver = await startDriver(env, log);
  const s = await Session.start(driver.base, app);
  return { s, server: started.child, driver, url: started.url };
}

/** Ends what [`openApp`] opened (whatever of it was opened) and removes `tmp`. */
export async function closeApp(opened, tmp) {
  await opened?.s?.quit();
  await stopDriver(opened?.driver);
  opened?.server?.kill("SIGTERM");
  rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
}

/**
 * Another program's write on the SQLite database at `path`, held until its standard input
 * closes (`child.stdin.end()`): SQLite's own Python module takes a RESERVED lock, which keeps
 * anyone else from writing. With `wal`, the database is put in WAL mode first (a lock there
 * makes writers wait out their busy timeout; in a rollback journal, switching to WAL is
 * asked for again until the busy timeout is up, then fails). Resolves to the child once the
 * lock is held.
 */
export function holdWrite(path, { wal = false } = {}) {
  const code =
    "import sqlite3, sys\n" +
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n" +
    (wal ? "c.execute('PRAGMA journal_mode = WAL')\n" : "") +
    "c.execute('BEGIN IMMEDIATE')\n" +
    "print('held', flush=True)\n" +
    "sys.stdin.read()\n";
  const child = spawn("python3", ["-c", code, path], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (status) => reject(new Error(`the holder exited (${status})`)));
    createInterface({ input: child.stdout }).once("line", () => resolve(child));
  });
}
