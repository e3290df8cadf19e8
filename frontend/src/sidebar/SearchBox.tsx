import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import { searchConversations, type SearchHit } from '../api/conversations';
import { relativeTime } from '../shared/format';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { highlightTerms } from './snippet';
import { SearchIcon } from '../chat/conversation-icons';
import { Spinner, XIcon } from '../shared/icons';

/** Milliseconds of typing quiet before a search is sent. */
export const SEARCH_DEBOUNCE_MS = 250;

/** Props of SearchBox. */
export interface SearchBoxProps {
  selectedId: string | null;
  /** Current time in ms since epoch, for relative times. */
  now: number;
  onOpen: (id: string) => void;
  /** Called with true while a query is entered (the sidebar then shows results instead of the list). */
  onActive: (active: boolean) => void;
}

/** Renders `text` with the parts matching `query` inside <mark>, as text nodes only. */
export function Highlighted({ text, query }: { text: string; query: string }) {
  return (
    <>
      {highlightTerms(text, query).map((p, i) =>
        p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>,
      )}
    </>
  );
}

/**
 * The search field at the top of the sidebar and its results (ConversationService.Search,
 * debounced): titles and snippets with the matching terms highlighted. ArrowDown moves
 * from the field into the results, Up/Down/Home/End move between them, Enter opens one,
 * Esc clears the search (from the field or a result). Ctrl/Cmd+K focuses the field.
 */
export function SearchBox({ selectedId, now, onOpen, onActive }: SearchBoxProps) {
  const { t } = useTranslation('sidebar');
  const [query, setQuery] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const q = query.trim();

  const [result, resetResult] = useSearch(q);

  useEffect(() => {
    onActive(q !== '');
  }, [q, onActive]);

  useFocusShortcut(inputRef);

  const clear = () => {
    setQuery('');
    resetResult();
    inputRef.current?.focus();
  };

  const items = () => Array.from(listRef.current?.querySelectorAll<HTMLButtonElement>('.search-hit') ?? []);

  const onFieldKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape' && query !== '') {
      e.preventDefault();
      e.stopPropagation();
      clear();
    } else if (e.key === 'ArrowDown') {
      const first = items()[0];
      if (first) {
        e.preventDefault();
        first.focus();
      }
    } else if (e.key === 'Enter') {
      const first = result?.query === q ? result.hits[0] : undefined;
      if (first) {
        e.preventDefault();
        onOpen(first.id);
      }
    }
  };

  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const all = items();
    const i = all.indexOf(document.activeElement as HTMLButtonElement);
    let next: HTMLElement | undefined;
    if (e.key === 'ArrowDown') next = all[Math.min(all.length - 1, i + 1)];
    else if (e.key === 'ArrowUp') next = i <= 0 ? (inputRef.current ?? undefined) : all[i - 1];
    else if (e.key === 'Home') next = all[0];
    else if (e.key === 'End') next = all.at(-1);
    else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      clear();
      return;
    }
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  // While a newer query is on its way the previous results stay, marked as loading.
  const loading = result?.query !== q;
  return (
    <div className={q !== "" ? "search active" : "search"}>
      <div className="search-field">
        <SearchIcon size={14} className="search-icon" />
        <input
          ref={inputRef}
          className="input search-input"
          type="search"
          value={query}
          placeholder={t('search.placeholder')}
          aria-label={t('search.label')}
          aria-controls="search-results"
          spellCheck={false}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onFieldKey}
        />
        {query !== '' ? (
          <button type="button" className="icon-btn search-clear" aria-label={t('search.clear')} title={t('search.clearTitle')} onClick={clear}>
            <XIcon size={13} />
          </button>
        ) : null}
      </div>
      {q !== '' ? (
        <div className={`search-results${loading ? ' loading' : ''}`} id="search-results" aria-busy={loading}>
          <SearchResults result={result} query={q} selectedId={selectedId} now={now} onOpen={onOpen} listRef={listRef} onListKey={onListKey} />
        </div>
      ) : null}
    </div>
  );
}

/** One search's outcome: the query it was for, its hits, or its error. */
interface SearchResult {
  query: string;
  hits: SearchHit[];
  error: string;
}

/**
 * Searches conversations for `q` after SEARCH_DEBOUNCE_MS of quiet. Gives the latest result
 * (null before the first) and a function that forgets it (the search was cleared).
 */
function useSearch(q: string): [SearchResult | null, () => void] {
  const [result, setResult] = useState<SearchResult | null>(null);
  useEffect(() => {
    if (q === '') return;
    let stale = false;
    const timer = window.setTimeout(() => {
      searchConversations(q).then(
        (hits) => {
          if (!stale) setResult({ query: q, hits, error: '' });
        },
        (e: unknown) => {
          if (!stale) setResult({ query: q, hits: [], error: toApiError(e).message });
        },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      stale = true;
      window.clearTimeout(timer);
    };
  }, [q]);
  return [result, () => setResult(null)];
}

/** Ctrl/Cmd+K focuses (and selects) the field. */
function useFocusShortcut(inputRef: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        inputRef.current?.focus();
        inputRef.current?.select();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [inputRef]);
}

/** Props of SearchResults. */
interface SearchResultsProps {
  /** The latest results (of an older query while a newer one is on its way); null before the first. */
  result: SearchResult | null;
  query: string;
  selectedId: string | null;
  now: number;
  onOpen: (id: string) => void;
  listRef: RefObject<HTMLUListElement | null>;
  onListKey: (e: KeyboardEvent<HTMLUListElement>) => void;
}

/** The results: searching…, the error, "no match", or the hits with title, snippet and time. */
function SearchResults({ result: shown, query: q, selectedId, now, onOpen, listRef, onListKey }: SearchResultsProps) {
  const { t } = useTranslation('sidebar');
  if (shown === null) {
    return (
      <p className="sidebar-note">
        <Spinner size={12} /> {t('search.searching')}
      </p>
    );
  }
  if (shown.error) {
    return (
      <p className="sidebar-note error-text" role="alert">
        {shown.error}
      </p>
    );
  }
  if (shown.hits.length === 0) return <p className="sidebar-note">{t('search.noMatch', { query: q })}</p>;
  return (
    <ul className="search-list" ref={listRef} onKeyDown={onListKey} aria-label={t('search.results')}>
      {shown.hits.map((h) => (
        <li key={h.id}>
          <button
            type="button"
            className={`search-hit${h.id === selectedId ? ' selected' : ''}`}
            aria-current={h.id === selectedId ? 'page' : undefined}
            onClick={() => onOpen(h.id)}
          >
            <span className="search-title">
              <Highlighted text={h.title || t('common:untitled')} query={q} />
            </span>
            {h.snippet && h.snippet !== h.title ? (
              <span className="search-snippet">
                <Highlighted text={h.snippet} query={q} />
              </span>
            ) : null}
            <span className="search-meta">{relativeTime(h.updated_at || h.created_at, now)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
