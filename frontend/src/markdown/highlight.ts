// Syntax highlighting with shiki's fine-grained core: the highlighter, the JavaScript regex
// engine, two themes and each grammar are separate chunks loaded on first use, so the main
// bundle carries none of them. Output is plain HTML with class names only (no inline
// styles): colours live in one generated <style> element, so the HTML passes DOMPurify
// with the app's rules (which forbid style attributes) unchanged.

import type { HighlighterCore, LanguageRegistration, ThemedTokenWithVariants } from 'shiki/core';

type Grammar = () => Promise<{ default: LanguageRegistration[] }>;

/** The grammars the app can load, by shiki id. A small fixed set; each is its own chunk. */
const GRAMMARS: Record<string, Grammar> = {
  javascript: () => import('shiki/langs/javascript.mjs'),
  typescript: () => import('shiki/langs/typescript.mjs'),
  jsx: () => import('shiki/langs/jsx.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  shellscript: () => import('shiki/langs/shellscript.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  html: () => import('shiki/langs/html.mjs'),
  css: () => import('shiki/langs/css.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  java: () => import('shiki/langs/java.mjs'),
  c: () => import('shiki/langs/c.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
  toml: () => import('shiki/langs/toml.mjs'),
  xml: () => import('shiki/langs/xml.mjs'),
};

const ALIASES: Record<string, string> = {
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', node: 'javascript', javascript: 'javascript',
  ts: 'typescript', mts: 'typescript', cts: 'typescript', typescript: 'typescript',
  jsx: 'jsx', tsx: 'tsx',
  py: 'python', py3: 'python', python3: 'python', python: 'python',
  go: 'go', golang: 'go',
  json: 'json', jsonc: 'json', json5: 'json',
  sh: 'shellscript', bash: 'shellscript', zsh: 'shellscript', shell: 'shellscript', shellscript: 'shellscript', console: 'shellscript',
  sql: 'sql', sqlite: 'sql', postgres: 'sql', postgresql: 'sql', mysql: 'sql',
  html: 'html', htm: 'html', xhtml: 'html',
  css: 'css',
  yaml: 'yaml', yml: 'yaml',
  md: 'markdown', markdown: 'markdown',
  rust: 'rust', rs: 'rust',
  java: 'java',
  c: 'c', h: 'c',
  diff: 'diff', patch: 'diff',
  toml: 'toml',
  xml: 'xml', svg: 'xml',
};

/** Code longer than this many characters is shown plain (highlighting would stall the page). */
export const MAX_HIGHLIGHT_CHARS = 200_000;

/**
 * The grammar id for a fence language or an artifact content type ("py", "Python",
 * "text/x-python", "language-ts" ...), or null when the app has no grammar for it.
 */
export function resolveLanguage(name: string): string | null {
  let n = name.trim().toLowerCase();
  n = n.replace(/^(language-|lang-)/, '').replace(/^(text|application)\/(x-)?/, '');
  n = n.split(/[\s;{,]/)[0] ?? '';
  const id = ALIASES[n];
  return id !== undefined && id in GRAMMARS ? id : null;
}

/**
 * The distinct grammar ids the fenced code blocks of a markdown text ask for (```lang or
 * ~~~lang); unknown languages are left out.
 */
export function fenceLanguages(markdown: string): string[] {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)/gm)) {
    const id = resolveLanguage(m[1] ?? '');
    if (id !== null) out.add(id);
  }
  return [...out];
}

let highlighter: HighlighterCore | null = null;
let starting: Promise<HighlighterCore> | null = null;
const loaded = new Set<string>();
const pending = new Map<string, Promise<void>>();

function start(): Promise<HighlighterCore> {
  starting ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import('shiki/core'),
      import('shiki/engine/javascript'),
      import('shiki/themes/github-light.mjs'),
      import('shiki/themes/github-dark.mjs'),
    ]);
    const h = await createHighlighterCore({
      themes: [light.default, dark.default],
      langs: [],
      engine: createJavaScriptRegexEngine({ forgiving: true }),
    });
    highlighter = h;
    return h;
  })();
  return starting;
}

/**
 * Loads the highlighter and the grammars of `languages` (names as for resolveLanguage;
 * unknown ones are ignored). Resolves true when at least one of them became usable by this
 * call, false when none needed loading; never rejects (a grammar that fails to load just
 * stays plain).
 */
export async function loadLanguages(languages: readonly string[]): Promise<boolean> {
  const ids = [...new Set(languages.map(resolveLanguage).filter((x): x is string => x !== null))].filter((id) => !loaded.has(id));
  if (ids.length === 0) return false;
  let h: HighlighterCore;
  try {
    h = await start();
  } catch (e) {
    console.warn('syntax highlighting is unavailable', e);
    return false;
  }
  await Promise.all(
    ids.map((id) => {
      let p = pending.get(id);
      if (!p) {
        const grammar = GRAMMARS[id];
        p = (grammar ? grammar() : Promise.reject(new Error(`no grammar for ${id}`)))
          .then((m) => h.loadLanguage(m.default))
          .then(
            () => {
              loaded.add(id);
            },
            (e: unknown) => console.warn(`syntax highlighting for ${id} is unavailable`, e),
          );
        pending.set(id, p);
      }
      return p;
    }),
  );
  return ids.some((id) => loaded.has(id));
}

/** Reports whether `language` can be highlighted right now (highlighter and grammar loaded). */
export function isLanguageReady(language: string): boolean {
  const id = resolveLanguage(language);
  return highlighter !== null && id !== null && loaded.has(id);
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Colour classes: "light|dark" -> class name; the rules are appended to one <style> element.
const colorClasses = new Map<string, string>();
let styleEl: HTMLStyleElement | null = null;
const HEX = /^#[0-9a-f]{3,8}$/i;

function colorClass(light: string | undefined, dark: string | undefined): string {
  const l = light !== undefined && HEX.test(light) ? light : '';
  const d = dark !== undefined && HEX.test(dark) ? dark : '';
  if (l === '' && d === '') return '';
  const key = `${l}|${d}`;
  let cls = colorClasses.get(key);
  if (cls === undefined) {
    cls = `hl-${String(colorClasses.size)}`;
    colorClasses.set(key, cls);
    if (typeof document !== 'undefined') {
      if (styleEl === null) {
        styleEl = document.createElement('style');
        styleEl.id = 'af-highlight-colors';
        document.head.appendChild(styleEl);
      }
      const rules = (l ? `.${cls}{color:${l}}` : '') + (d ? `@media (prefers-color-scheme: dark){.${cls}{color:${d}}}` : '');
      styleEl.appendChild(document.createTextNode(`${rules}\n`));
    }
  }
  return cls;
}

/**
 * Turns shiki tokens (with "light" and "dark" variants) into `<pre class="shiki
 * language-ID"><code>` HTML: one `<span class="line">` per line, each coloured token a
 * `<span class="hl-N">` (plus hl-i / hl-b / hl-u for italic, bold, underline). Text is
 * HTML-escaped; no style attributes are produced.
 */
export function tokensToHtml(lines: ThemedTokenWithVariants[][], languageId: string): string {
  const body = lines
    .map((line) => {
      const inner = line
        .map((t) => {
          const light = t.variants.light;
          const dark = t.variants.dark;
          const classes = [colorClass(light?.color, dark?.color)];
          const fs = light?.fontStyle ?? 0;
          if (fs > 0) {
            if (fs & 1) classes.push('hl-i');
            if (fs & 2) classes.push('hl-b');
            if (fs & 4) classes.push('hl-u');
          }
          const cls = classes.filter((c) => c !== '').join(' ');
          return cls === '' ? escapeHtml(t.content) : `<span class="${cls}">${escapeHtml(t.content)}</span>`;
        })
        .join('');
      return `<span class="line">${inner}</span>`;
    })
    .join('\n');
  return `<pre class="shiki language-${escapeHtml(languageId)}"><code>${body}</code></pre>`;
}

/**
 * Highlights `code` as `language` if that is possible right now (see isLanguageReady and
 * MAX_HIGHLIGHT_CHARS) and returns the HTML of tokensToHtml, else null (show plain code and
 * call loadLanguages). The result is not sanitized; callers pass it through DOMPurify.
 */
export function highlightSync(code: string, language: string): string | null {
  const id = resolveLanguage(language);
  if (highlighter === null || id === null || !loaded.has(id) || code.length > MAX_HIGHLIGHT_CHARS) return null;
  try {
    const lines = highlighter.codeToTokensWithThemes(code.replace(/\n$/, ''), { lang: id, themes: { light: 'github-light', dark: 'github-dark' } });
    return tokensToHtml(lines, id);
  } catch (e) {
    console.warn('highlighting failed', e);
    return null;
  }
}
