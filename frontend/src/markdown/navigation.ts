// The app's window never navigates away from the app. Links of any kind (<a>, image-map
// <area>, SVG <a>), form submissions and window.open are intercepted in the page: web and
// mail links open in the system browser (runtime.BrowserOpenURL), anything else (relative
// URLs, javascript:, data:, file: ...) goes nowhere. Wails v2 offers no navigation-policy
// hook on Linux (WebKitGTK's decide-policy is not exposed), so the page is where navigation
// is refused; in browser mode the server's Content-Security-Policy (form-action 'none',
// base-uri 'none', frame-src 'none') backs this up.

import { isExternalUrl, openExternal } from '../api/runtime';

/** The subset of a DOM or React mouse event that followLink reads. */
export interface LinkActivation {
  readonly type: string;
  readonly button: number;
  readonly target: EventTarget | null;
  readonly defaultPrevented: boolean;
  preventDefault(): void;
}

/** The subset of a DOM or React submit event that blockSubmit reads. */
export interface SubmitActivation {
  readonly defaultPrevented: boolean;
  preventDefault(): void;
}

const XLINK = 'http://www.w3.org/1999/xlink';

/**
 * The link a click on `target` would follow: the closest `<a>` or `<area>` (HTML or SVG)
 * that has an href, or null.
 */
export function linkOf(target: EventTarget | null): Element | null {
  if (!(target instanceof Element)) return null;
  const link = target.closest('a, area');
  return link !== null && (link.hasAttribute('href') || link.hasAttributeNS(XLINK, 'href')) ? link : null;
}

/**
 * The link's href exactly as written (href, else SVG's xlink:href), never resolved against
 * the app's own URL, so a relative link cannot turn into an app URL.
 */
export function rawHref(link: Element): string {
  return (link.getAttribute('href') ?? link.getAttributeNS(XLINK, 'href') ?? '').trim();
}

/** A download of a Blob the app made itself (files.downloadBase64), which is no navigation. */
function isOwnDownload(link: Element): boolean {
  return link.hasAttribute('download') && rawHref(link).startsWith('blob:');
}

/**
 * Handles a click, or a middle click (auxclick with button 1), that would follow a link:
 * cancels the navigation and opens http(s) and mailto links with openExternal (the system
 * browser); other hrefs open nothing. Returns whether it handled the event. An event that is
 * already cancelled is left alone, so guardNavigation and a component's own handler never
 * both open one link. The app's own Blob downloads pass untouched.
 */
export function followLink(e: LinkActivation): boolean {
  if (e.defaultPrevented) return false;
  if (e.type === 'auxclick' && e.button !== 1) return false; // a right click follows nothing
  const link = linkOf(e.target);
  if (link === null || isOwnDownload(link)) return false;
  e.preventDefault();
  openExternal(rawHref(link));
  return true;
}

/**
 * Cancels a form submission unless something already did: a form never navigates the app
 * and its data goes nowhere (forms in untrusted content are removed by the sanitizer anyway).
 */
export function blockSubmit(e: SubmitActivation): void {
  if (!e.defaultPrevented) e.preventDefault();
}

/** Marks an element whose content is untrusted (rendered markdown): forms inside it never submit. */
export const UNTRUSTED_ATTR = 'data-untrusted';

/**
 * Installs the window-wide navigation guard and returns the function that removes it:
 * - clicks and middle clicks on links, caught before any other handler, go through followLink;
 * - a submit from inside an untrusted element (UNTRUSTED_ATTR) is cancelled at once; any other
 *   submit the app's own handlers leave uncancelled is cancelled after them (so React's form
 *   handlers, form actions included, still run);
 * - window.open opens http(s) and mailto URLs in the system browser and nothing else, and
 *   returns null (the page gets no handle on the new window).
 */
export function guardNavigation(win: Window = window): () => void {
  const onLink = (e: MouseEvent) => {
    followLink(e);
  };
  const onSubmitEarly = (e: SubmitEvent) => {
    if (e.target instanceof Element && e.target.closest(`[${UNTRUSTED_ATTR}]`) !== null) blockSubmit(e);
  };
  const onSubmitLate = (e: SubmitEvent) => blockSubmit(e);
  const nativeOpen = win.open; // eslint-disable-line @typescript-eslint/unbound-method -- called with win, restored as is
  const guardedOpen = (url?: string | URL): WindowProxy | null => {
    const href = url === undefined ? '' : String(url);
    if (!isExternalUrl(href)) return null;
    if (isObjectLike((win as unknown as Record<string, unknown>).runtime)) openExternal(href);
    else nativeOpen.call(win, href, '_blank', 'noopener,noreferrer');
    return null;
  };
  win.addEventListener('click', onLink, true);
  win.addEventListener('auxclick', onLink, true);
  win.addEventListener('submit', onSubmitEarly, true);
  win.addEventListener('submit', onSubmitLate);
  win.open = guardedOpen;
  return () => {
    win.removeEventListener('click', onLink, true);
    win.removeEventListener('auxclick', onLink, true);
    win.removeEventListener('submit', onSubmitEarly, true);
    win.removeEventListener('submit', onSubmitLate);
    if (win.open === guardedOpen) win.open = nativeOpen;
  };
}

function isObjectLike(v: unknown): boolean {
  return typeof v === 'object' && v !== null;
}
