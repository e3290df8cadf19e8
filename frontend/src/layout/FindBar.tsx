import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { clearMatches, findRanges, findScope, matchCount, paintMatches, stepMatch, type FindKind, type FindScope } from './find';
import { XIcon } from '../shared/icons';
import '../shared/everyday.css';

/** Props of FindBar. */
export interface FindBarProps {
  /** The conversation: the first element matching this selector (the conversation's scroll area). */
  rootSelector?: string;
}

// The bar's name for each place it searches is tools:find.label.<kind>.
// i18n-keys: tools:find.label.conversation tools:find.label.report tools:find.label.panel tools:find.label.dialog

/**
 * Find on the page: Ctrl/Cmd+F opens a bar (or focuses it again) for where the user is
 * (findScope): in an open dialog (the Reader, a comparison, Settings) the bar goes inside
 * the dialog and searches its content; with the focus in the artifact view it searches the
 * report, in the artifacts panel the panel; else the conversation. Typing highlights every
 * match with the CSS Custom Highlight API (no change to the page's DOM) and shows
 * "3 / 12"; Enter goes to the next match, Shift+Enter to the previous, both scrolling it
 * into view; Esc closes the bar, removes the highlights and gives the focus back. Matches
 * follow the content as it changes (a streaming answer); the bar closes with its dialog.
 */
export function FindBar({ rootSelector = '.chat-scroll' }: FindBarProps) {
  const { t } = useTranslation('tools');
  const [scope, setScope] = useState<FindScope | null>(null);
  const open = scope !== null;
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  const [count, setCount] = useState(0);
  // Bumped on every recomputation: a longer query can find as many matches with the same
  // current one, and the highlights must still move to the new ranges.
  const [generation, setGeneration] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // Bumped by every Ctrl+F: once the bar for it is rendered, its field takes the focus
  // with the query selected.
  const [focusAsked, setFocusAsked] = useState(0);
  const ranges = useRef<Range[]>([]);
  const scrolledTo = useRef('');
  const rangesQuery = useRef(''); // the query ranges.current was found for
  const focusBefore = useRef<HTMLElement | null>(null); // where the focus goes back on close

  // Ctrl/Cmd+F anywhere opens the bar (instead of the browser's own find, which the
  // desktop window does not have); pressed in the bar, it selects the query again.
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== 'f') return;
      const active = document.activeElement;
      const inBar = active !== null && active.closest('.find-bar') !== null;
      const next = inBar ? null : findScope(document, active, rootSelector);
      if (!inBar && next === null) return;
      e.preventDefault();
      if (next !== null) {
        if (active instanceof HTMLElement && active !== document.body) focusBefore.current = active;
        setScope((was) => (was !== null && was.root === next.root ? was : next));
      }
      setFocusAsked((n) => n + 1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [rootSelector]);
  useLayoutEffect(() => {
    if (focusAsked === 0) return;
    input.current?.focus();
    input.current?.select();
  }, [focusAsked]);

  // A dialog the bar is in closes (or leaves the page): the bar closes with it.
  useEffect(() => {
    const host = scope?.host;
    if (!host) return;
    const check = () => {
      if (!host.isConnected || !host.open) {
        setScope(null);
        setQuery('');
      }
    };
    const mo = new MutationObserver(check);
    mo.observe(document.body, { childList: true, subtree: true });
    host.addEventListener('close', check);
    return () => {
      mo.disconnect();
      host.removeEventListener('close', check);
    };
  }, [scope]);

  // Recompute the matches when the query changes or the searched content does.
  const refresh = useCallback(
    (keep: boolean) => {
      const root = scope?.root;
      const found = root?.isConnected ? findRanges(root, query) : [];
      ranges.current = found;
      rangesQuery.current = query;
      setCount(found.length);
      setGeneration((g) => g + 1);
      setCurrent((c) => (found.length === 0 ? -1 : keep && c >= 0 ? Math.min(c, found.length - 1) : 0));
    },
    [scope, query],
  );
  useEffect(() => {
    // Deferred (also the first time), so typing and streaming text recompute once per batch.
    let timer = window.setTimeout(() => refresh(false), 0);
    const root = scope?.root;
    if (!root) return () => window.clearTimeout(timer);
    const mo = new MutationObserver(() => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => refresh(true), 50);
    });
    mo.observe(root, { subtree: true, childList: true, characterData: true });
    return () => {
      mo.disconnect();
      window.clearTimeout(timer);
    };
  }, [scope, refresh]);

  // Paint the highlights; bring the current match into view. A layout effect, so the
  // highlights change in the same commit as the count beside them (a passive effect can
  // run a frame later, leaving "1 / 4" shown over no highlighted match meanwhile).
  useLayoutEffect(() => {
    if (!open) {
      clearMatches();
      return;
    }
    paintMatches(ranges.current, current);
    // Scroll only when the user moved to another match or changed the query, not each time
    // a streaming answer makes the matches be recomputed.
    const cur = ranges.current[current];
    const key = `${rangesQuery.current}\u0000${String(current)}`;
    if (cur !== undefined && scrolledTo.current !== key) {
      scrolledTo.current = key;
      cur.startContainer.parentElement?.scrollIntoView({ block: 'center', inline: 'nearest' });
    }
  }, [open, current, count, generation]);
  useEffect(() => clearMatches, []);

  const close = () => {
    setScope(null);
    setQuery('');
    const back = focusBefore.current;
    focusBefore.current = null;
    if (back?.isConnected) back.focus();
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      setCurrent((c) => stepMatch(c, ranges.current.length, e.shiftKey ? -1 : 1));
    }
  };
  if (scope === null) return null;
  const label = matchCount(current, count, query);
  const where = t(`find.label.${scope.kind}`);
  const bar = (
    <div className={`find-bar${placement(scope.kind, scope.host !== null)}`} role="search" aria-label={where} data-scope={scope.kind}>
      <input
        ref={input}
        type="search"
        value={query}
        placeholder={where}
        aria-label={where}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={onKey}
        spellCheck={false}
      />
      <span className="find-count" role="status" aria-live="polite">
        {label}
      </span>
      <button type="button" className="icon-btn" aria-label={t('find.previous')} title={t('find.previous')} disabled={count === 0}
        onClick={() => setCurrent((c) => stepMatch(c, ranges.current.length, -1))}>
        ‹
      </button>
      <button type="button" className="icon-btn" aria-label={t('find.next')} title={t('find.next')} disabled={count === 0}
        onClick={() => setCurrent((c) => stepMatch(c, ranges.current.length, 1))}>
        ›
      </button>
      <button type="button" className="icon-btn" aria-label={t('find.close')} title={t('find.closeTitle')} onClick={close}>
        <XIcon size={13} />
      </button>
    </div>
  );
  // In a dialog the bar must be inside it: a modal dialog leaves the rest of the page inert
  // and above it, and the Reader covers the window.
  return scope.host !== null ? createPortal(bar, scope.host) : bar;
}

/** The find bar's placement class: inside a dialog, over the artifacts panel, or (none) over the conversation. */
function placement(kind: FindKind, inDialog: boolean): string {
  if (inDialog) return ' find-in-dialog';
  return kind === 'conversation' ? '' : ' find-in-panel';
}
