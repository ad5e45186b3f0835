// A scripted core for tests that mount the window in jsdom: every command waits until the
// test answers it (from `pending`), so replies can come in any order, late or never.
import type * as Bindings from "./bindings";

/** A command sent and not answered yet. */
export type Sent = { name: string; args: unknown[]; answer: (v: unknown) => void };

/** The commands sent so far that wait for an answer, oldest first. */
export const pending: Sent[] = [];

/** The bindings module with its commands scripted: for `vi.mock("./bindings", …)`. */
export async function scriptedBindings(original: () => Promise<typeof Bindings>): Promise<typeof Bindings> {
  const real = await original();
  const commands = new Proxy(
    {},
    { get: (_, name) => (...args: unknown[]) => new Promise((answer) => pending.push({ name: String(name), args, answer })) },
  ) as typeof Bindings.commands;
  return { ...real, commands };
}
