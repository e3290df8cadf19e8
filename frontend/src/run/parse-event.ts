// Reading one run event off the wire (the Wails runtime or browser mode's event stream).

import type { EventType, RunEvent } from './event-types';
import { obj, str } from './run-util';

/**
 * Parses one event payload as delivered by the Wails runtime (an object) or by browser mode
 * (possibly a JSON string). Returns null for anything that is not an event object with a
 * string type, string ids and a numeric seq. A missing or non-object data becomes {}.
 */
export function parseEvent(payload: unknown): RunEvent | null {
  let v: unknown = payload;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  const o = obj(v);
  if (typeof o.type !== 'string' || typeof o.conversation_id !== 'string' || typeof o.seq !== 'number') {
    return null;
  }
  let data: unknown = o.data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      data = {};
    }
  }
  return {
    type: o.type as EventType,
    conversation_id: o.conversation_id,
    message_id: str(o.message_id),
    seq: o.seq,
    agent_name: str(o.agent_name) || undefined,
    created_at: str(o.created_at),
    data: obj(data),
  };
}
