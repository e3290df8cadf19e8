// The app's tooltips. Controls keep their title attribute (it is their accessible
// description, and the tests read it), but the engine's own tooltip is never shown: the
// page draws the tooltip itself, and hides it for good on a press until the pointer moves
// to another element.
//
// Why: WebKitGTK (the desktop window) takes a control's tooltip text when the pointer moves
// over it and shows it half a second later, also when the click on that control opened a
// dialog in the meantime and the pointer has not moved: the tooltip then stays over the
// dialog. Both engines read the title for their tooltip after the page has handled the
// pointer move, so the title is taken away for the length of that event and put back just
// after it.

/** Class of the tooltip element (styled in style.css). */
export const TOOLTIP_CLASS = 'af-tooltip';

/** How long the pointer rests on an element before its tooltip shows, in ms. */
export const TOOLTIP_DELAY_MS = 500;

/** Holds the title of an element while it is taken away for the moment of a pointer event. */
const MUTED = 'data-title-muted';

/** Gap between an element and its tooltip, in CSS px. */
const GAP = 6;

/**
 * Installs the app's tooltips on doc: for the element with a title under the pointer, the
 * title's text shows in a tooltip (role tooltip, class TOOLTIP_CLASS) below it (above when
 * there is no room) after TOOLTIP_DELAY_MS, inside the open dialog that holds the element
 * (a modal dialog is above everything else) or at the end of the body. A press, a key, the
 * wheel or the pointer leaving the element hides it; after that it shows again only once
 * the pointer has moved to another element. Returns a function that uninstalls it.
 */
export function installTooltips(doc: Document = document): () => void {
  const win = doc.defaultView ?? window;
  let current: Element | null = null; // the element with a title under the pointer
  let tip: HTMLElement | null = null;

  const hide = () => {
    tip?.remove();
    tip = null;
  };
  // The tooltip is put in place at once and shows after TOOLTIP_DELAY_MS through a CSS
  // animation delay: WebKitGTK in the desktop window did not run a half-second timer
  // while the pointer rested.
  const show = (el: Element, text: string) => {
    if (text.trim() === '') return;
    const host = el.closest('dialog[open]') ?? doc.body;
    const t = doc.createElement('div');
    t.className = TOOLTIP_CLASS;
    t.setAttribute('role', 'tooltip');
    t.style.animationDelay = `${String(TOOLTIP_DELAY_MS)}ms`;
    t.textContent = text;
    host.appendChild(t);
    tip = t;
    place(t, el.getBoundingClientRect(), win);
  };
  // The engine reads the title for its own tooltip once the page has handled the move:
  // take it away for that moment.
  const mute = (el: Element) => {
    const title = el.getAttribute('title');
    if (title === null) return;
    el.removeAttribute('title');
    el.setAttribute(MUTED, title);
    win.setTimeout(() => {
      el.removeAttribute(MUTED);
      if (!el.hasAttribute('title')) el.setAttribute('title', title);
    }, 0);
  };
  const onMove = (e: Event) => {
    // The pointerover and pointermove of one move both come before the title is back.
    const el = e.target instanceof Element ? e.target.closest(`[title], [${MUTED}]`) : null;
    if (el !== current) {
      hide();
      current = el;
      if (el !== null) show(el, el.getAttribute('title') ?? el.getAttribute(MUTED) ?? '');
    }
    if (el !== null) mute(el);
  };
  const onOut = (e: Event) => {
    if ((e as PointerEvent).relatedTarget === null) {
      hide();
      current = null;
    }
  };
  const opts = { capture: true, passive: true };
  const events: [string, (e: Event) => void][] = [
    ['pointerover', onMove],
    ['pointermove', onMove],
    // A press, a key or the wheel: no tooltip until the pointer moves to another element.
    ['pointerdown', hide],
    ['keydown', hide],
    ['wheel', hide],
    ['pointerout', onOut],
  ];
  for (const [name, fn] of events) doc.addEventListener(name, fn, opts);
  win.addEventListener('blur', hide);
  return () => {
    for (const [name, fn] of events) doc.removeEventListener(name, fn, opts);
    win.removeEventListener('blur', hide);
    hide();
  };
}

/**
 * Puts tip (position: fixed) below the element box r, or above it when the window has no
 * room below, within the window's width. The page may be zoomed (CSS zoom on <html>), which
 * engines apply differently to fixed positions: the first placement is measured and
 * corrected once.
 */
function place(tip: HTMLElement, r: DOMRect, win: Window) {
  const set = (left: number, top: number) => {
    tip.style.left = `${String(left)}px`;
    tip.style.top = `${String(top)}px`;
  };
  const w = tip.getBoundingClientRect();
  const below = r.bottom + GAP + w.height <= win.innerHeight;
  const top = below ? r.bottom + GAP : Math.max(0, r.top - GAP - w.height);
  const left = Math.min(Math.max(4, r.left + r.width / 2 - w.width / 2), Math.max(4, win.innerWidth - w.width - 4));
  set(left, top);
  const got = tip.getBoundingClientRect();
  // Measured where we asked, or scaled: a zoom factor k maps a style offset s to k * s.
  const k = left > 0 && got.left > 0 ? got.left / left : 1;
  if (Math.abs(k - 1) > 0.01) set(left / k, top / k);
}
