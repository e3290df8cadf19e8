// Small pure formatting helpers for times, durations, sizes and activity lines.

import type { Step } from './events';

/**
 * A short relative time for `iso` as seen at `now` (ms since epoch): "just now", "5 min ago",
 * "3 h ago", "yesterday", "4 days ago", or a date ("12 Mar" this year, "12 Mar 2024" before).
 * An unparsable time gives "".
 */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${String(m)} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${String(h)} h ago`;
  const d = Math.floor(h / 24);
  if (d === 1) return 'yesterday';
  if (d < 7) return `${String(d)} days ago`;
  const date = new Date(t);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString('en-GB', sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' });
}

/** A duration in ms as "850 ms", "1.2s", "42s", "3m 05s" or "1h 02m". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${String(Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 60) return `${String(Math.round(s))}s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h > 0) return `${String(h)}h ${String(m).padStart(2, '0')}m`;
  return `${String(m)}m ${String(sec).padStart(2, '0')}s`;
}

/** A count as "950", "12.3k", "245k" or "1.2M". */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** A byte size as "512 B", "3.4 KB" or "1.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${String(n)} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** A URL without scheme, "www." and trailing slash, cut to `max` characters with an ellipsis. */
export function shortUrl(url: string, max = 60): string {
  const s = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^www\./, '').replace(/\/$/, '');
  return clip(s, max);
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, Math.max(1, max - 1)).trimEnd()}…` : one;
}

/**
 * How many results a web_search result text holds: the length of a JSON array (or of its
 * "results" array), else the count of numbered or <result> entries; 0 when unknown.
 */
export function countResults(result: string): number {
  const text = result.trim();
  if (text.startsWith('[') || text.startsWith('{')) {
    try {
      const v: unknown = JSON.parse(text);
      if (Array.isArray(v)) return v.length;
      const r = (v as { results?: unknown }).results;
      if (Array.isArray(r)) return r.length;
    } catch {
      // Not JSON: fall through to the text forms.
    }
  }
  const tags = text.match(/<result[\s>]/g);
  if (tags) return tags.length;
  const numbered = text.match(/^\s*\d+[.)]\s+\S/gm);
  return numbered ? numbered.length : 0;
}

/** The parts of one activity line: who, what, an optional quoted/target detail and figures. */
export interface StepLine {
  agent: string;
  action: string;
  /** The query, URL, artifact id or instruction the step is about ("" when none). */
  detail: string;
  /** Whether `detail` is free text to show in quotes (a query or instruction). */
  quoted: boolean;
  /** Extra figures such as "3 results", "12.3k chars", "1.2s". */
  meta: string[];
}

const param = (p: Record<string, unknown>, k: string): string => {
  const v = p[k];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
};

/**
 * Describes one activity step for display, e.g. a web_search tool step as
 * {agent: "search_agent", action: "web_search", detail: "query", quoted: true,
 * meta: ["3 results", "1.2s"]}.
 */
export function describeStep(step: Step): StepLine {
  if (step.kind === 'note') return { agent: '', action: step.text, detail: '', quoted: false, meta: [] };
  if (step.kind === 'agent') {
    const meta: string[] = [];
    if (step.tokens) meta.push(`${formatCount(step.tokens)} tokens`);
    if (step.durationMs !== undefined && step.status !== 'running') meta.push(formatDuration(step.durationMs));
    let action = `round ${String(step.round + 1)}`;
    if (step.answered) action = step.depth === 0 ? 'writes the answer' : 'reports back';
    if (step.status === 'running') action = step.depth === 0 && step.round === 0 ? 'planning' : 'thinking';
    return { agent: step.agent, action, detail: '', quoted: false, meta };
  }
  const p = step.params;
  const meta: string[] = [];
  let detail: string;
  let quoted = false;
  switch (step.tool) {
    case 'web_search': {
      detail = param(p, 'query');
      quoted = true;
      if (step.status === 'done') {
        const n = countResults(step.result);
        if (n > 0) meta.push(`${String(n)} result${n === 1 ? '' : 's'}`);
      }
      break;
    }
    case 'web_fetch': {
      detail = shortUrl(param(p, 'url'));
      if (step.status === 'done' && step.result) meta.push(`${formatCount(step.result.length)} chars`);
      break;
    }
    case 'call_subagent':
      detail = param(p, 'agent_name');
      if (step.status === 'done' && step.result) meta.push(`${formatCount(step.result.length)} chars back`);
      break;
    default:
      detail = param(p, 'id');
      if (step.tool === 'read_artifact' && param(p, 'version')) detail += ` v${param(p, 'version')}`;
  }
  if (step.durationMs !== undefined && step.status !== 'running') meta.push(formatDuration(step.durationMs));
  return { agent: step.agent, action: step.tool, detail: quoted ? clip(detail, 120) : detail, quoted: quoted && detail !== '', meta };
}
