import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText, openExternal } from '../api/runtime';
import { filterSources, isWebSource, sourceMeta, sourceTitle, type Source } from './citations';
import { clip, relativeTime } from '../shared/format';
import { Spinner } from '../shared/icons';
import './citations.css';

/** Props of SourcesList. */
export interface SourcesListProps {
  /** The conversation's sources in number order; null while they load. */
  sources: readonly Source[] | null;
  /** The load failed: what to say instead of the list ("" when it did not). */
  error?: string;
  /** The current time in ms since epoch, for "5 min ago". */
  now?: number;
}

/**
 * The panel's Sources tab: the conversation's sources in number order, each with its
 * number (as a chip), title, site and date (for files the path and page or line),
 * whether it was read or only listed in results, and when it was added; a filter box
 * narrows the list by words or by number. A web source opens in the system browser on
 * click or Enter; a file source copies its workspace path. Titles and excerpts are plain
 * text.
 */
export function SourcesList({ sources, error = '', now }: SourcesListProps) {
  const { t } = useTranslation('sources');
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  useEffect(() => {
    if (status === '') return;
    const timer = window.setTimeout(() => setStatus(''), 4000);
    return () => window.clearTimeout(timer);
  }, [status]);
  const shown = sources === null ? [] : filterSources(sources, query);

  const activate = (s: Source) => {
    if (isWebSource(s)) {
      openExternal(s.location);
      return;
    }
    void copyText(s.location).then((ok) => setStatus(ok ? t('list.copied', { path: s.location }) : t('list.copyFailed')));
  };

  return (
    <div className="sources">
      <div className="sources-filter">
        <input
          type="search"
          value={query}
          placeholder={t('list.filter')}
          aria-label={t('list.filter')}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && query !== '') {
              e.preventDefault();
              setQuery('');
            }
          }}
        />
      </div>
      <div className="sources-status" role="status">
        {status}
      </div>
      {error !== '' ? (
        <p className="sources-empty error-text">{t('list.loadFailed', { error })}</p>
      ) : sources === null ? (
        <p className="sources-empty">
          <Spinner size={12} /> {t('common:loading')}
        </p>
      ) : sources.length === 0 ? (
        <p className="sources-empty">{t('list.empty')}</p>
      ) : shown.length === 0 ? (
        <p className="sources-empty">{t('list.noMatch', { query: query.trim() })}</p>
      ) : (
        <ul className="source-list" aria-label={t('list.label')}>
          {shown.map((s) => {
            const web = isWebSource(s);
            const meta = sourceMeta(s);
            const added = relativeTime(s.added_at, now);
            return (
              <li key={s.n}>
                <button
                  type="button"
                  className="source-row"
                  data-source={s.n}
                  title={web ? t('list.openTitle', { location: s.location }) : t('list.copyTitle', { location: s.location })}
                  onClick={() => activate(s)}
                >
                  <span className="cite cite-static" aria-hidden="true">
                    {s.n}
                  </span>
                  <span className="source-main">
                    <span className="source-title">
                      <span className="sr-only">{t('list.srSource', { n: s.n })}</span>
                      {clip(sourceTitle(s), 160)}
                    </span>
                    {meta !== '' ? <span className="source-meta">{meta}</span> : null}
                    {s.excerpt.trim() !== '' ? <span className="source-excerpt">{clip(s.excerpt.trim(), 200)}</span> : null}
                  </span>
                  <span className="source-side">
                    <span className={`badge badge-${s.fetched ? 'fetched' : 'listed'}`}>{s.fetched ? t('list.read') : t('list.listed')}</span>
                    {added !== '' ? <time dateTime={s.added_at}>{added}</time> : null}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
