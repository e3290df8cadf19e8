// Types shared by the chat column's components and hooks.
import type { Message } from '../api/conversations';
import type { RunState } from '../run/events';

/** One exchange to show: a stored message, a live run, or both (a run seen live and stored). */
export interface ChatItem {
  key: string;
  message?: Message;
  live?: RunState;
}

/** A message sent during a run that the run's events do not list yet (sent, or on its way). */
export interface LocalQueued {
  key: string;
  conversationId: string;
  content: string;
  /** The queued message's id once ChatService.Queue answered; "" before. */
  queuedId: string;
}

/** Which exchange action is under way ('' none). */
export type ChatBusy = '' | 'branch' | 'edit' | 'regenerate' | 'queue';
