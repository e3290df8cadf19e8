// The conversation list asked for at start-up, before React renders: main.tsx asks for it
// first thing (start-loads.ts), while the rest of the bundle is still being evaluated, and
// holds the first render until it has come (briefly), so the first paint shows the list
// instead of an empty sidebar followed by a second render (docs/ARCHITECTURE.md,
// "Start-up"). useConversationList takes the answer for its first load.
import { listConversations, type Conversation } from '../api/conversations';
import { markStep } from '../launchMark';

/** What the start-up request for the conversation list came to. */
export type FirstList = { ok: true; list: Conversation[] } | { ok: false; error: unknown };

let pending: Promise<Conversation[]> | null = null;
let answer: FirstList | null = null;

/** Asks the backend for the conversation list, once per page; later calls do nothing. */
export function askFirstList(): void {
  if (pending !== null || answer !== null) return;
  markStep('conversation list asked');
  const p = listConversations();
  pending = p;
  p.then(
    (list) => {
      markStep('conversation list received');
      if (pending === p) answer = { ok: true, list };
    },
    (error: unknown) => {
      if (pending === p) answer = { ok: false, error };
    },
  );
}

/**
 * Resolves (never rejects) once the start-up request has been answered or failed, or after
 * maxMs milliseconds, whichever is first; at once when nothing was asked.
 */
export function firstListSettled(maxMs: number): Promise<void> {
  const p = pending;
  if (p === null) return Promise.resolve();
  return Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => setTimeout(resolve, maxMs)),
  ]);
}

/** The start-up request's answer if it has come and was not taken yet; null otherwise. */
export function firstListAnswer(): FirstList | null {
  return answer;
}

/**
 * The start-up request, once: its promise (answered or not) for the first load of the list,
 * so that load never asks twice; null when nothing was asked or it was taken already.
 */
export function takeFirstList(): Promise<Conversation[]> | null {
  const p = pending;
  pending = null;
  answer = null;
  return p;
}
