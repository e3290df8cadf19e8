// The citation chips' shared state: the open conversation's sources, the hover card and
// what a click does. Chips come in two flavours that behave the same: those made in
// rendered Markdown (citations.linkCitations; the Markdown component forwards their
// events here) and CiteChip elements (an answer's source list).

import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { openExternal } from '../api/runtime';
import { chipLabel, copyCitations, isWebSource, missingTitle, placeCard, sourceMeta, sourceTitle, uploadArtifactId, type CiteResolver, type Source } from './citations';
import { clip, shortUrl } from '../shared/format';
import './citations.css';

/** What CitationProvider gives the chips below it. */
export interface Citations {
  /** The conversation's sources in number order; null while they load. */
  sources: readonly Source[] | null;
  /** Why they could not be loaded ("" when they were, or are loading). */
  error: string;
  /** The same by number. */
  byNumber: ReadonlyMap<number, Source>;
  /** Resolves numbers for citations.linkCitations; undefined while the sources load (no chips yet). */
  resolve: CiteResolver | undefined;
  /** Shows the card of source `n` next to `anchor` (a chip), replacing any other. */
  show: (anchor: HTMLElement, n: number) => void;
  /** Hides the card: after a short delay (so the pointer can move onto it), or at once. */
  hide: (now?: boolean) => void;
  /**
   * Opens source `n`: a web page in the system browser, a local file through
   * CitationProviderProps.onOpenFile; returns whether it did.
   */
  open: (n: number) => boolean;
  /** Closes the card if its chip has left the page (its Markdown was rendered again). */
  prune: () => void;
}

const CitationsContext = createContext<Citations | null>(null);

/** The citation state of the nearest CitationProvider, or null outside one. */
export function useCitations(): Citations | null {
  return useContext(CitationsContext);
}

/** The id of the hover card; a chip whose card is open points to it with aria-describedby. */
export const CARD_ID = 'cite-card';

const HIDE_DELAY_MS = 150;

/** Props of CitationProvider. */
export interface CitationProviderProps {
  /** The open conversation's sources in number order, or null while they load. */
  sources: readonly Source[] | null;
  /** Why the sources could not be loaded ("" when they were, or are loading). */
  error?: string;
  /**
   * Opens a cited local file: an upload in the artifact panel, a workspace file with the
   * system's application (the caller decides; see App). Without it a file's chip does nothing.
   */
  onOpenFile?: (s: Source) => void;
  children: ReactNode;
}

/**
 * Holds the open conversation's sources for every chip below it and renders the one hover
 * card (in document.body, fixed, placed by citations.placeCard so it is never clipped).
 * The card closes on Escape (which then does nothing else, e.g. does not stop the run), on
 * scrolling, on resizing, and when its chip leaves the page. While it is mounted, copying a
 * selection that holds chips writes them as "[n]" (citations.copyCitations).
 */
export function CitationProvider({ sources, error = '', onOpenFile, children }: CitationProviderProps) {
  const [card, setCard] = useState<{ n: number; anchor: HTMLElement } | null>(null);
  const timer = useRef(0);
  const byNumber = useMemo(() => new Map((sources ?? []).map((s) => [s.n, s])), [sources]);
  const resolve = useMemo<CiteResolver | undefined>(() => {
    if (sources === null) return undefined;
    return (n) => {
      const s = byNumber.get(n);
      return s === undefined ? undefined : { title: sourceTitle(s) };
    };
  }, [sources, byNumber]);

  const show = useCallback((anchor: HTMLElement, n: number) => {
    window.clearTimeout(timer.current);
    setCard((c) => (c?.anchor === anchor && c.n === n ? c : { n, anchor }));
  }, []);
  const hide = useCallback((now = false) => {
    window.clearTimeout(timer.current);
    if (now) setCard(null);
    else timer.current = window.setTimeout(() => setCard(null), HIDE_DELAY_MS);
  }, []);
  const prune = useCallback(() => setCard((c) => (c !== null && !c.anchor.isConnected ? null : c)), []);
  const open = useCallback(
    (n: number) => {
      const s = byNumber.get(n);
      if (s === undefined) return false;
      if (isWebSource(s)) return openExternal(s.location);
      if (s.kind !== 'file' || onOpenFile === undefined) return false;
      setCard(null);
      onOpenFile(s);
      return true;
    },
    [byNumber, onOpenFile],
  );

  // The chip whose card is open describes itself by it.
  useEffect(() => {
    if (card === null) return;
    const { anchor } = card;
    anchor.setAttribute('aria-describedby', CARD_ID);
    return () => anchor.removeAttribute('aria-describedby');
  }, [card]);

  useEffect(() => {
    if (card === null) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      setCard(null);
    };
    const close = (e: Event) => {
      // The card's own scrolling (a long excerpt in a short window) keeps it open.
      if (e.target instanceof Node && document.getElementById(CARD_ID)?.contains(e.target)) return;
      setCard(null);
    };
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('scroll', close, true);
    window.addEventListener('resize', close);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('scroll', close, true);
      window.removeEventListener('resize', close);
    };
  }, [card]);

  useEffect(() => () => window.clearTimeout(timer.current), []);

  // Copying a selection with chips gives "[1]", not a bare "1" (see citations.copyCitations).
  useEffect(() => {
    const onCopy = (e: ClipboardEvent) => {
      copyCitations(e, document.getSelection());
    };
    document.addEventListener('copy', onCopy);
    return () => document.removeEventListener('copy', onCopy);
  }, []);

  const value = useMemo<Citations>(
    () => ({ sources, error, byNumber, resolve, show, hide, open, prune }),
    [sources, error, byNumber, resolve, show, hide, open, prune],
  );
  const source = card !== null ? byNumber.get(card.n) : undefined;
  return (
    <CitationsContext.Provider value={value}>
      {children}
      {card !== null && source !== undefined && card.anchor.isConnected ? (
        <CitationCard source={source} anchor={card.anchor} onEnter={() => window.clearTimeout(timer.current)} onLeave={() => hide()} />
      ) : null}
    </CitationsContext.Provider>
  );
}

/** Props of CitationCard. */
interface CitationCardProps {
  source: Source;
  anchor: HTMLElement;
  onEnter: () => void;
  onLeave: () => void;
}

/**
 * The hover card of one source: number, title, site and date (path and page or line for a
 * file), whether it was read or only listed, the excerpt and the address. All of it is
 * plain text.
 */
function CitationCard({ source: s, anchor, onEnter, onLeave }: CitationCardProps) {
  const { t } = useTranslation('sources');
  const ref = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState<{ left: number; top: number; maxHeight: number } | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el === null) return;
    el.style.maxHeight = '';
    const r = el.getBoundingClientRect();
    setPlace(placeCard(anchor.getBoundingClientRect(), { width: r.width, height: r.height }, { width: window.innerWidth, height: window.innerHeight }));
  }, [anchor, s]);
  const web = isWebSource(s);
  const meta = sourceMeta(s);
  return createPortal(
    <div
      ref={ref}
      id={CARD_ID}
      role="tooltip"
      className="cite-card"
      data-cite-card={s.n}
      style={place === null ? { left: 0, top: 0, visibility: 'hidden' } : { left: place.left, top: place.top, maxHeight: place.maxHeight }}
      onMouseEnter={onEnter}
      onMouseLeave={onLeave}
    >
      <div className="cite-card-head">
        <span className="cite cite-static" aria-hidden="true">
          {s.n}
        </span>
        <strong className="cite-card-title">{clip(sourceTitle(s), 200)}</strong>
      </div>
      <div className="cite-card-meta">
        {meta !== '' ? <span>{meta}</span> : null}
        <span className={`cite-card-state${s.fetched ? ' fetched' : ''}`}>{s.fetched ? (s.kind === 'file' ? t('card.read') : t('card.pageRead')) : t('card.listed')}</span>
      </div>
      {s.excerpt.trim() !== '' ? <p className="cite-card-excerpt">{clip(s.excerpt.trim(), 320)}</p> : null}
      {web ? <div className="cite-card-url">{shortUrl(s.location, 80)}</div> : null}
      <div className="cite-card-hint">{web ? t('card.hintWeb') : uploadArtifactId(s) !== '' ? t('card.hintUpload') : t('card.hintFile')}</div>
    </div>,
    document.body,
  );
}

/** Props of CiteChip. */
export interface CiteChipProps {
  n: number;
}

/**
 * One citation chip made by React (the same look and behaviour as those in rendered
 * Markdown): a button showing n whose hover or focus shows the source's card and whose
 * click or Enter opens the source (a web page in the system browser, a local file through
 * CitationProvider's onOpenFile); for a number that is not among
 * the conversation's sources, an unresolved chip that is never a link; while the sources
 * load, a plain number.
 */
export function CiteChip({ n }: CiteChipProps) {
  useTranslation('sources'); // re-render on a language change
  const c = useCitations();
  const s = c?.byNumber.get(n);
  if (c === null || c.sources === null) return <span className="cite cite-pending">{n}</span>;
  if (s === undefined) {
    return (
      <span className="cite cite-missing" data-cite={n} title={missingTitle(n)}>
        {n}
      </span>
    );
  }
  return (
    <button
      type="button"
      className="cite"
      data-cite={n}
      aria-label={chipLabel(n, sourceTitle(s))}
      onMouseEnter={(e) => c.show(e.currentTarget, n)}
      onMouseLeave={() => c.hide()}
      onFocus={(e) => c.show(e.currentTarget, n)}
      onBlur={() => c.hide(true)}
      onClick={() => c.open(n)}
    >
      {n}
    </button>
  );
}
