import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { clearMatches, findRanges, matchCount, paintMatches, stepMatch } from '../find';
import { XIcon } from './icons';
import './everyday.css';

/** Props of FindBar. */
export interface FindBarProps {
  /** Where to search: the first element matching this selector (the conversation's scroll area). */
  rootSelector?: string;
}

/**
 * Find in the conversation: Ctrl/Cmd+F opens a bar over the conversation (or focuses it
 * again); typing highlights every match with the CSS Custom Highlight API (no change to
 * the page's DOM) and shows "3 / 12"; Enter goes to the next match, Shift+Enter to the
 * previous, both scrolling it into view; Esc closes the bar and removes the highlights.
 * Matches follow the conversation as it changes (a streaming answer).
 */
export function FindBar({ rootSelector = '.chat-scroll' }: FindBarProps) {
  const { t } = useTranslation('tools');
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  const [count, setCount] = useState(0);
  // Bumped on every recomputation: a longer query can find as many matches with the same
  // current one, and the highlights must still move to the new ranges.
  const [generation, setGeneration] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const ranges = useRef<Range[]>([]);
  const scrolledTo = useRef('');
  const rangesQuery = useRef(''); // the query ranges.current was found for

  // Ctrl/Cmd+F anywhere opens the bar (instead of the browser's own find, which the
  // desktop window does not have).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== 'f') return;
      if (document.querySelector('dialog[open]') !== null) return;
      e.preventDefault();
      setOpen(true);
      window.setTimeout(() => {
        input.current?.focus();
        input.current?.select();
      }, 0);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Recompute the matches when the query changes or the conversation's DOM does.
  const refresh = useCallback(
    (keep: boolean) => {
      const root = document.querySelector(rootSelector);
      const found = open && root !== null ? findRanges(root, query) : [];
      ranges.current = found;
      rangesQuery.current = query;
      setCount(found.length);
      setGeneration((g) => g + 1);
      setCurrent((c) => (found.length === 0 ? -1 : keep && c >= 0 ? Math.min(c, found.length - 1) : 0));
    },
    [open, query, rootSelector],
  );
  useEffect(() => {
    // Deferred (also the first time), so typing and streaming text recompute once per batch.
    let timer = window.setTimeout(() => refresh(false), 0);
    const root = document.querySelector(rootSelector);
    if (!open || root === null) return () => window.clearTimeout(timer);
    const mo = new MutationObserver(() => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => refresh(true), 50);
    });
    mo.observe(root, { subtree: true, childList: true, characterData: true });
    return () => {
      mo.disconnect();
      window.clearTimeout(timer);
    };
  }, [open, refresh, rootSelector]);

  // Paint the highlights; bring the current match into view.
  useEffect(() => {
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
    setOpen(false);
    setQuery('');
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
  if (!open) return null;
  const label = matchCount(current, count, query);
  return (
    <div className="find-bar" role="search" aria-label={t('find.label')}>
      <input
        ref={input}
        type="search"
        value={query}
        placeholder={t('find.label')}
        aria-label={t('find.label')}
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
}
