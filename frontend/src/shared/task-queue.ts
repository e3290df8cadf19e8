// Calls gathered and run together in the page's next task. Used by the window's run-event
// batches (api/runtime.ts) and by the effect timing (shared/effect-timing.ts).

/** A queue of calls run together in one task of the page (nextTaskQueue). */
export interface TaskQueue {
  /** Queues call; the first call queued since the last run asks for the next task. */
  readonly push: (call: () => void) => void;
  /** Runs every queued call now, in order, in the current task. */
  readonly flush: () => void;
  /** Stops asking for tasks (calls still queued are dropped). */
  readonly close: () => void;
}

/**
 * A TaskQueue whose calls run, in the order queued, in the page's next task: one
 * MessageChannel message per batch, so everything queued before that task runs in it. A
 * call that throws is reported on the console as "<what> failed" and the rest still run.
 */
export function nextTaskQueue(what: string): TaskQueue {
  const channel = new MessageChannel();
  let queued: (() => void)[] = [];
  const flush = () => {
    const calls = queued;
    queued = [];
    for (const call of calls) {
      try {
        call();
      } catch (e) {
        console.error(`${what} failed`, e);
      }
    }
  };
  channel.port1.onmessage = flush;
  return {
    push: (call) => {
      queued.push(call);
      if (queued.length === 1) channel.port2.postMessage(null);
    },
    flush,
    close: () => {
      queued = [];
      channel.port1.close();
    },
  };
}
