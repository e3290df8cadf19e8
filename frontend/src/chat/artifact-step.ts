// What an artifact tool row in the activity shows when expanded: the artifact's title, id,
// version and text instead of the <artifact …> wrapper the model read
// (backend/tools/artifacts.go: artifactResult and read_artifact).

import { i18n } from '../i18n/i18n';

/** The artifact tools whose rows get this view. */
export const ARTIFACT_TOOLS: ReadonlySet<string> = new Set(['create_artifact', 'update_artifact', 'rewrite_artifact', 'read_artifact']);

/** A readable view of one artifact tool call. */
export interface ArtifactStepView {
  /** The artifact id ('' when neither the call nor the result names one). */
  id: string;
  /** The title the call set or the read returned; '' when unknown. */
  title: string;
  /** The version the result reports, or null when it reports none. */
  version: number | null;
  /**
   * What the tool did as the result says it ("Created", "Updated", "Rewritten"), or "read", in
   * the UI's language (an unknown verb as the result wrote it).
   */
  verb: string;
  /** Plain text to show: the new content, the replaced and inserted text, or the text read. */
  preview: string;
}

const WRAPPED = /^\s*<artifact\b([^>]*)>([\s\S]*?)<\/artifact>([\s\S]*)$/;
const ATTR = /(\w+)="((?:[^"\\]|\\.)*)"/g;
const SHORT = /^\s*<id>([\s\S]*?)<\/id>\s*([\s\S]*?)\s*$/;

/** Undoes the escapes Go's %q (attribute values) and html.EscapeString (ids) leave. */
function unescape(s: string): string {
  if (s.includes('\\')) {
    try {
      s = JSON.parse(`"${s}"`) as string;
    } catch {
      // Not JSON-compatible Go quoting (\x.., \a): keep the text as written.
    }
  }
  return s
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

// The verbs backend/tools/artifacts.go writes, each under artifacts:step.<verb in lower case>.
// i18n-keys: artifacts:step.created artifacts:step.updated artifacts:step.rewritten artifacts:step.read
const VERBS: ReadonlySet<string> = new Set(['created', 'updated', 'rewritten', 'read']);

/** `verb` in the UI's language, keeping an initial capital; unknown verbs as written. */
function localVerb(verb: string): string {
  const lower = verb.toLowerCase();
  if (!VERBS.has(lower)) return verb;
  const out = i18n.t(`artifacts:step.${lower}`);
  const capital = verb.charAt(0) !== lower.charAt(0);
  return capital ? out.charAt(0).toUpperCase() + out.slice(1) : out;
}

/**
 * Returns the readable view of an artifact tool call (tool, its params, its result text), or
 * null for any other tool or a result that is not an <artifact> element (an error, say), in
 * which case the raw result is the better thing to show.
 */
export function artifactStepView(tool: string, params: Readonly<Record<string, unknown>>, result: string): ArtifactStepView | null {
  if (!ARTIFACT_TOOLS.has(tool)) return null;
  const m = WRAPPED.exec(result);
  if (!m) return null;
  const attrs: Record<string, string> = {};
  for (const a of (m[1] ?? '').matchAll(ATTR)) attrs[a[1] ?? ''] = unescape(a[2] ?? '');
  const inner = m[2] ?? '';
  const short = SHORT.exec(inner);
  const version = Number.parseInt(attrs.version ?? '', 10);
  const view: ArtifactStepView = {
    id: short ? unescape(short[1] ?? '') : (attrs.id ?? str(params.id)),
    title: attrs.title ?? str(params.title),
    version: Number.isFinite(version) ? version : null,
    verb: localVerb(short ? (short[2] ?? '') : 'read'),
    preview: '',
  };
  if (view.id === '') view.id = str(params.id);
  if (tool === 'read_artifact') {
    view.preview = inner.replace(/^\n/, '').replace(/\n$/, '') + (m[3] ?? '');
  } else if (tool === 'update_artifact') {
    const removed = str(params.old_str);
    const added = str(params.new_str);
    view.preview = [removed && `− ${removed}`, added && `+ ${added}`].filter(Boolean).join('\n');
  } else {
    view.preview = str(params.content);
  }
  return view;
}
