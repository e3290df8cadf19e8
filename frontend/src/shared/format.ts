// Small pure formatting helpers for times, durations, sizes and activity lines, in the UI's
// language: numbers through Intl with currentLocale(), words from the `format` catalogue.

import type { Step } from '../run/event-types';
import { currentLocale, i18n } from '../i18n/i18n';
import { mcpArgsSummary, parseMcpToolName } from './mcp-names';

// Building an Intl formatter costs far more than using one (in WebKitGTK the conversation list's
// dates took ~100 ms of the first render when each row built its own), so each locale and set of
// options builds one and keeps it (docs/ARCHITECTURE.md, "Start-up").
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(kind: string, locale: string, options: object, make: () => T): T {
  const key = `${kind}|${locale}|${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (f === undefined) {
    f = make();
    formatters.set(key, f);
  }
  return f as T;
}

/** The UI locale's Intl.NumberFormat for `options`, built once per locale and options. */
export function numberFormat(options: Intl.NumberFormatOptions = {}, locale: string = currentLocale()): Intl.NumberFormat {
  return cached('n', locale, options, () => new Intl.NumberFormat(locale, options));
}

/** The UI locale's Intl.DateTimeFormat for `options`, built once per locale and options. */
export function dateTimeFormat(options: Intl.DateTimeFormatOptions, locale: string = currentLocale()): Intl.DateTimeFormat {
  return cached('d', locale, options, () => new Intl.DateTimeFormat(locale, options));
}

/**
 * A number in the UI's locale with between `min` and `max` fraction digits ("1,234.5"),
 * rounded as toFixed rounds (3.05 → "3", as the figures always read), then written by Intl.
 */
export function formatNumber(n: number, min = 0, max = min): string {
  const rounded = Number(n.toFixed(max));
  return numberFormat({ minimumFractionDigits: min, maximumFractionDigits: max }).format(rounded);
}

/**
 * A short relative time for `iso` as seen at `now` (ms since epoch), in the UI's language:
 * "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago" (刚刚, 5 分钟前, 3 小时前,
 * 昨天, 4天前), or a date by locale ("Mar 12" / "3月12日" this year, with the year before).
 * An unparsable time gives "".
 */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return i18n.t('format:time.justNow');
  const m = Math.round(s / 60);
  if (m < 60) return i18n.t('format:time.minutesAgo', { count: m, n: formatNumber(m) });
  const h = Math.round(m / 60);
  if (h < 24) return i18n.t('format:time.hoursAgo', { count: h, n: formatNumber(h) });
  const d = Math.floor(h / 24);
  if (d < 7) {
    const locale = currentLocale();
    return cached('r', locale, { numeric: 'auto' }, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })).format(-d, 'day');
  }
  const date = new Date(t);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return dateTimeFormat(sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' }).format(date);
}

/**
 * A duration in ms as "850 ms", "1.2s", "42s", "3m 05s" or "1h 02m" (in Chinese 850 毫秒,
 * 1.2 秒, 3 分 05 秒, 1 小时 02 分).
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return i18n.t('format:duration.ms', { n: formatNumber(Math.round(ms)) });
  const s = ms / 1000;
  if (s < 10) return i18n.t('format:duration.seconds', { n: formatNumber(s, 1) });
  if (s < 60) return i18n.t('format:duration.seconds', { n: formatNumber(Math.round(s)) });
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h > 0) return i18n.t('format:duration.hours', { h: formatNumber(h), m: String(m).padStart(2, '0') });
  return i18n.t('format:duration.minutes', { m: formatNumber(m), s: String(sec).padStart(2, '0') });
}

/**
 * A count as "950", "12.3k", "245k" or "1.2M" in English; in Chinese by ten-thousands as
 * Intl's compact notation writes them ("2.3万", "125万").
 */
export function formatCount(n: number): string {
  const locale = currentLocale();
  if (locale !== 'en') return numberFormat({ notation: 'compact', maximumFractionDigits: 1 }, locale).format(n);
  if (n < 1000) return formatNumber(n, 0, 0);
  if (n < 1_000_000) return `${formatNumber(n / 1000, 0, n < 100_000 ? 1 : 0)}k`;
  return `${formatNumber(n / 1_000_000, 0, 1)}M`;
}

/** A byte size as "512 B", "3.4 KB", "1.2 MB" or "2.5 GB" (512 字节 in Chinese), numbers by locale. */
export function formatBytes(n: number): string {
  if (n < 1024) return i18n.t('format:size.bytes', { n: formatNumber(n) });
  if (n < 1024 * 1024) return i18n.t('format:size.kb', { n: formatNumber(n / 1024, 1) });
  if (n < 1024 * 1024 * 1024) return i18n.t('format:size.mb', { n: formatNumber(n / (1024 * 1024), 1) });
  return i18n.t('format:size.gb', { n: formatNumber(n / (1024 * 1024 * 1024), 1) });
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
 * An error message on one line, cut to `max` characters in the middle: its first third and
 * its end are kept around "…", because an error ends with its cause ("…: connection
 * refused"), which a cut must not take away.
 */
export function clipError(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  const head = Math.floor((max - 1) / 3);
  return `${one.slice(0, head).trimEnd()}…${one.slice(one.length - (max - 1 - head)).trimStart()}`;
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
  /** Extra figures such as "3 results", "12.3k chars", "1.2s" (in the UI's language). */
  meta: string[];
  /** The MCP server of an MCP tool step (`action` is then the tool's own name); absent for the others. */
  server?: string;
}

const param = (p: Record<string, unknown>, k: string): string => {
  const v = p[k];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
};

/**
 * Describes one activity step for display, e.g. a web_search tool step as
 * {agent: "search_agent", action: "web_search", detail: "query", quoted: true,
 * meta: ["3 results", "1.2s"]}. An MCP tool's step (mcp__<server>__<tool>) is the tool's own
 * name as action with its server, its arguments as the detail (mcpArgsSummary) and the
 * length of its result.
 */
export function describeStep(step: Step): StepLine {
  if (step.kind === 'note') return { agent: '', action: step.text, detail: '', quoted: false, meta: [] };
  if (step.kind === 'agent') {
    const meta: string[] = [];
    if (step.tokens) meta.push(i18n.t('format:step.tokens', { count: step.tokens, n: formatCount(step.tokens) }));
    if (step.durationMs !== undefined && step.status !== 'running') meta.push(formatDuration(step.durationMs));
    let action = i18n.t('format:step.round', { n: formatNumber(step.round + 1) });
    if (step.answered) action = step.depth === 0 ? i18n.t('format:step.writesAnswer') : i18n.t('format:step.reportsBack');
    if (step.status === 'running') action = step.depth === 0 && step.round === 0 ? i18n.t('format:step.planning') : i18n.t('format:step.thinking');
    return { agent: step.agent, action, detail: '', quoted: false, meta };
  }
  const p = step.params;
  const meta: string[] = [];
  const mcp = parseMcpToolName(step.tool);
  if (mcp !== null) {
    const args = mcpArgsSummary(p);
    if (step.status === 'done' && step.result) meta.push(i18n.t('format:step.chars', { count: step.result.length, n: formatCount(step.result.length) }));
    if (step.durationMs !== undefined && step.status !== 'running') meta.push(formatDuration(step.durationMs));
    return { agent: step.agent, action: mcp.tool, server: mcp.server, detail: clip(args.text, 120), quoted: args.quoted && args.text !== '', meta };
  }
  let detail: string;
  let quoted = false;
  switch (step.tool) {
    case 'web_search': {
      detail = param(p, 'query');
      quoted = true;
      if (step.status === 'done') {
        const n = countResults(step.result);
        if (n > 0) meta.push(i18n.t('format:step.results', { count: n, n: formatNumber(n) }));
      }
      break;
    }
    case 'web_fetch': {
      detail = shortUrl(param(p, 'url'));
      if (step.status === 'done' && step.result) meta.push(i18n.t('format:step.chars', { count: step.result.length, n: formatCount(step.result.length) }));
      break;
    }
    case 'call_subagent':
      detail = param(p, 'agent_name');
      if (step.status === 'done' && step.result) meta.push(i18n.t('format:step.charsBack', { count: step.result.length, n: formatCount(step.result.length) }));
      break;
    default:
      detail = param(p, 'id');
      if (step.tool === 'read_artifact' && param(p, 'version')) detail += ` v${param(p, 'version')}`;
  }
  if (step.durationMs !== undefined && step.status !== 'running') meta.push(formatDuration(step.durationMs));
  return { agent: step.agent, action: step.tool, detail: quoted ? clip(detail, 120) : detail, quoted: quoted && detail !== '', meta };
}
