// Typed wrapper over ConversationService.Sources (issue 9, item 3): the conversation's
// numbered source list, which resolves the [n] citations of answers and reports. Like
// api.ts, the call resolves with normalized objects or rejects with an ApiError; nothing
// else in the UI imports this binding.

import * as ConversationService from '../wailsjs/go/app/ConversationService';
import { asString as str, callService, type Loose } from './api-call';

/**
 * One source of a conversation (sources.Source's JSON). `n` starts at 1 and never changes;
 * `kind` is "web" (`location`: an absolute URL, the final one for a fetched page) or "file"
 * (`location`: the workspace-relative slash path); other kinds from newer backends are kept
 * as strings. `title`, `site`, `excerpt` and `published` are plain text from outside the
 * app: render them as text only. `page` and `line` are 0 when unknown. `fetched` is true
 * once the page or file was read, not only listed. `added_at` is RFC 3339.
 */
export interface Source {
  n: number;
  kind: string;
  location: string;
  title: string;
  site: string;
  excerpt: string;
  published: string;
  page: number;
  line: number;
  fetched: boolean;
  message_id: string;
  added_at: string;
}

const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 0);

/**
 * Normalizes one source as it arrives from ConversationService.Sources or a source_added
 * event's data (Go's JSON: missing fields, null). Returns null unless it has a number ≥ 1
 * and a location.
 */
export function normalizeSource(v: unknown): Source | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const x = v as Loose;
  const n = int(x.n);
  const location = str(x.location);
  if (n === 0 || location === '') return null;
  return {
    n,
    kind: str(x.kind),
    location,
    title: str(x.title),
    site: str(x.site),
    excerpt: str(x.excerpt),
    published: str(x.published),
    page: int(x.page),
    line: int(x.line),
    fetched: x.fetched === true,
    message_id: str(x.message_id),
    added_at: str(x.added_at),
  };
}

/**
 * The conversation's sources in number order (ConversationService.Sources); an empty list
 * for a conversation without any. Rejects with ApiError "unavailable" when no backend is
 * attached, "unsupported" when the backend has no Sources method, else the call's error.
 */
export async function listSources(conversationId: string): Promise<Source[]> {
  const raw: unknown = await callService('ConversationService', 'Sources', () => ConversationService.Sources(conversationId));
  if (!Array.isArray(raw)) return [];
  return (raw as unknown[]).map(normalizeSource).filter((s): s is Source => s !== null).sort((a, b) => a.n - b.n);
}
