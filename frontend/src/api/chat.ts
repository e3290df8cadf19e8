// ChatService (app/chat.go): starting, steering and stopping research runs. Each function is
// one bound call through callService plus the normalization of its answer; the run's events
// arrive through onRunEvent (runtime.ts).

import * as ChatService from '../../wailsjs/go/app/ChatService';
import type { app } from '../../wailsjs/go/models';
import { callService, asString as s, asBool as b, asObject as o, asStrings, type Loose, type Model, wire } from './call';

/** Runs the bound call ChatService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('ChatService', method, fn);

/** Ids of a run that has started (app.SendResult). */
export type SendResult = Model<app.SendResult>;

function sendResult(x: Loose, conversationId = ''): SendResult {
  return { conversation_id: s(x.conversation_id) || conversationId, message_id: s(x.message_id) };
}

/**
 * Starts a research run (ChatService.Send); empty conversationId starts a new conversation.
 * `images` are the artifact ids of pictures uploaded into the conversation for this
 * question (at most 8); rejects with invalid_request when one is not such a picture.
 */
export async function sendMessage(conversationId: string, content: string, images: readonly string[] = []): Promise<SendResult> {
  const req = wire<app.SendRequest>({ conversation_id: conversationId, content, images: [...images] });
  return sendResult(o(await call('Send', () => ChatService.Send(req))));
}

/**
 * Edit and resend (ChatService.Send with edit_of): `content` becomes a new sibling of the
 * question `messageId` (a new branch, made active) and a run starts for it. Rejects like
 * sendMessage, and with code message_not_found for a message outside the conversation.
 * `images` are the question's pictures to keep (the edited question's, by artifact id).
 */
export async function sendEdited(conversationId: string, messageId: string, content: string, images: readonly string[] = []): Promise<SendResult> {
  const req = wire<app.SendRequest>({ conversation_id: conversationId, content, edit_of: messageId, images: [...images] });
  return sendResult(o(await call('Send', () => ChatService.Send(req))));
}

/**
 * Runs question `messageId` again as a new answer beside the old one
 * (ChatService.Regenerate): a new sibling with the same content, made the active branch.
 */
export async function regenerate(conversationId: string, messageId: string): Promise<SendResult> {
  return sendResult(o(await call('Regenerate', () => ChatService.Regenerate(conversationId, messageId))));
}

/**
 * What became of a message sent during a run (app.QueueResult): `queued` with `queuedId`
 * when the running lead takes it at its next round; otherwise a new run was started and
 * `run` names it (handle it like a sendMessage result).
 */
export type QueueResult = Omit<Model<app.QueueResult>, 'queued_id' | 'run'> & { queuedId: string; run: SendResult };

/** Sends `content` to the research going in a conversation (ChatService.Queue); see QueueResult. */
export async function queueMessage(conversationId: string, content: string): Promise<QueueResult> {
  const r = o(await call('Queue', () => ChatService.Queue(conversationId, content)));
  return { queued: b(r.queued), queuedId: s(r.queued_id), run: sendResult(o(r.run), conversationId) };
}

/** The answers a user can give to a permission request (ChatService.Respond's decision, a Go string). */
export type PermissionReply = 'approve' | 'deny' | 'always_allow';

/**
 * Answers permission request `requestId` of the run going in a conversation
 * (ChatService.Respond). always_allow also stores the tool as "auto" in the settings.
 * Rejects when the request is unknown or already decided (it may have timed out).
 */
export async function respondPermission(conversationId: string, requestId: string, decision: PermissionReply): Promise<void> {
  await call('Respond', () => ChatService.Respond(conversationId, requestId, decision));
}

/** Cancels the run going in a conversation (ChatService.Stop); a no-op when none is. */
export async function stopRun(conversationId: string): Promise<void> {
  await call('Stop', () => ChatService.Stop(conversationId));
}

/** Ids of conversations with a run in progress (ChatService.Running). */
export async function runningConversations(): Promise<string[]> {
  return asStrings(await call('Running', () => ChatService.Running()));
}
