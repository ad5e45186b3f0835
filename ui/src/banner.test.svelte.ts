// The model banner mounted in jsdom with the core's commands answered by the test: what a
// person would notice while the model server does not answer, then does.
import { flushSync, mount, tick, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConnectionCheck, OpeningView } from "./bindings";

const asked: { answer: (v: OpeningView) => void }[] = [];
vi.mock("./bindings", async (original) => {
  const real = await original<typeof import("./bindings")>();
  const opening = () => new Promise<OpeningView>((answer) => asked.push({ answer }));
  return { ...real, commands: { ...real.commands, opening } };
});

const { default: ModelBanner } = await import("./parts/ModelBanner.svelte");
const { app } = await import("./state.svelte");

const down: ConnectionCheck = { ok: false, message: "Ollama at http://127.0.0.1:9 is not running", models: [], model_available: false };
const up: ConnectionCheck = { ok: true, message: "answered", models: ["m"], model_available: true };
const lacking: ConnectionCheck = { ok: true, message: "answered, but not m", models: ["other"], model_available: false };
const view = (check: ConnectionCheck): OpeningView => ({ first_run: false, check, notices: [], upgrading: false, database_upgrade: null });

async function settle() {
  for (let n = 0; n < 5; n++) await tick();
  flushSync();
}

describe("the model banner", () => {
  let banner: ReturnType<typeof mount>;
  beforeEach(() => {
    vi.useFakeTimers();
    asked.length = 0;
  });
  afterEach(() => {
    unmount(banner);
    vi.useRealTimers();
  });

  it("asks again on its own while nothing answers, and goes once the server answers with the model", async () => {
    app.banner = down;
    banner = mount(ModelBanner, { target: document.body });
    flushSync();
    expect(document.querySelector("#model-banner .message")?.textContent).toContain("not running");
    expect(asked.length).toBe(0);

    vi.advanceTimersByTime(5000);
    expect(asked.length).toBe(1);
    // Still nothing: the banner stays as it was, and asks again later.
    asked.shift()!.answer(view(down));
    await settle();
    expect(document.querySelector<HTMLElement>("#model-banner")?.hidden).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(asked.length).toBe(1);
    asked.shift()!.answer(view(up));
    await settle();
    expect(document.querySelector<HTMLElement>("#model-banner")?.hidden).toBe(true);
    expect(app.models).toEqual(["m"]);
    vi.advanceTimersByTime(20000);
    expect(asked.length).toBe(0);
  });

  it("waits for the person when the server answers without the model", async () => {
    app.banner = lacking;
    banner = mount(ModelBanner, { target: document.body });
    flushSync();
    expect(document.querySelector<HTMLElement>("#model-banner")?.hidden).toBe(false);
    vi.advanceTimersByTime(20000);
    expect(asked.length).toBe(0);
  });
});
