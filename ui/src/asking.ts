// Asking the wiki. A question belongs to the person, not to a screen: it runs on while they
// look elsewhere, and its answer waits in the store for the Ask screen.
import { commands, type AnswerView } from "./bindings";
import { go, showing } from "./router.svelte";
import { app, attempt, libraryChanged, say } from "./state.svelte";

/** Asks `question`, showing the Ask screen (a follow-up asked with a click shows in the box,
 * as if typed). A late reply to an earlier question is ignored. */
export async function ask(question: string): Promise<void> {
  const q = question.trim();
  if (!q) {
    say("Type a question first.");
    return;
  }
  const seq = app.ask.seq + 1;
  app.ask = { ...app.ask, draft: q, question: q, running: true, stopped: false, progress: null, answer: null, failure: null, seq };
  if (!showing("ask")) go({ kind: "ask" });
  let answer: AnswerView | null = null;
  let failure: string | null = null;
  try {
    answer = await commands.ask(q, false);
  } catch (e) {
    failure = String(e);
  }
  if (seq !== app.ask.seq) return; // another question was asked meanwhile
  app.ask.running = false;
  app.ask.answer = answer;
  app.ask.failure = failure;
  if (answer?.error) say(`No valid answer: ${answer.error}`, true);
  else if (answer) say(answer.covered ? "Answered" : "The wiki does not cover this question");
}

export async function stopAsking(): Promise<void> {
  app.ask.stopped = true;
  await attempt("Stopping", commands.cancel_ask());
}

export async function saveAnswer(): Promise<void> {
  const v = await attempt("Saving the answer", commands.save_answer(app.ask.question));
  if (!v) return;
  app.ask.answer = v;
  libraryChanged();
  if (v.saved) say(`Saved as the page “${v.saved.title}”`);
}
