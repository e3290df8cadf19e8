import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getSettings, SETTINGS_SAVED_EVENT } from '../api/settings';
import { clipError } from '../shared/format';
import { AlertIcon, XIcon } from '../shared/icons';
import './citations.css';

/** Whether web search can work, from the settings view (`search_ready`, `search_problem`). */
export interface SearchStatus {
  ready: boolean;
  /** What is wrong ("Tavily needs an API key"); "" when ready or not said. */
  problem: string;
}

/**
 * Reads the search status out of a settings view (app.SettingsView as the page receives
 * it). A backend that does not report it counts as ready, so no banner shows on a guess.
 */
export function searchStatusOf(view: unknown): SearchStatus {
  const x = typeof view === 'object' && view !== null ? (view as Record<string, unknown>) : {};
  const ready = x.search_ready !== false;
  return { ready, problem: ready || typeof x.search_problem !== 'string' ? '' : x.search_problem.trim() };
}

/**
 * The search status from SettingsService.Get, loaded when the window opens, again after
 * the settings are saved (SETTINGS_SAVED_EVENT) and whenever `reloadKey` changes. Ready
 * until it has loaded and when it cannot be loaded.
 */
export function useSearchStatus(reloadKey: string): SearchStatus {
  const [status, setStatus] = useState<SearchStatus>({ ready: true, problem: '' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const bump = () => setTick((t) => t + 1);
    window.addEventListener(SETTINGS_SAVED_EVENT, bump);
    return () => window.removeEventListener(SETTINGS_SAVED_EVENT, bump);
  }, []);
  useEffect(() => {
    let stale = false;
    getSettings().then(
      (v) => {
        if (!stale) setStatus(searchStatusOf(v));
      },
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, [tick, reloadKey]);
  return status;
}

/** Why the banner shows: search is not set up, or every search of the last run failed. */
export type SearchBannerReason = { kind: 'not-ready'; problem: string } | { kind: 'all-failed'; error: string; messageId: string };

/** Props of SearchBanner. */
export interface SearchBannerProps {
  /** Why it may show, most important first; the first one not dismissed shows. */
  reasons: readonly SearchBannerReason[];
  onOpenSettings: () => void;
}

/** An error message as a sentence of at most 200 characters, cut in the middle so its cause stays (clipError), with a space after ("" for none). */
function sentence(text: string): string {
  const t = clipError(text.trim(), 200);
  return t === '' ? '' : /[.!?…。！？]$/.test(t) ? `${t} ` : `${t}. `;
}

/** The identity of a banner: dismissing it hides that one, and a new reason shows again. */
function reasonKey(r: SearchBannerReason): string {
  return r.kind === 'not-ready' ? `nr:${r.problem}` : `af:${r.messageId}`;
}

/**
 * The banner above the composer: with web search not set up ("Tavily needs an API
 * key") or after a run whose every search failed, it says so and offers "Open
 * Settings"; the ✕ dismisses that reason, and the next one not dismissed (a new failed
 * run, a different problem) shows.
 */
export function SearchBanner({ reasons, onOpenSettings }: SearchBannerProps) {
  const { t } = useTranslation('settings');
  const [dismissed, setDismissed] = useState<string[]>([]);
  const reason = reasons.find((r) => !dismissed.includes(reasonKey(r)));
  if (reason === undefined) return null;
  const text =
    reason.kind === 'not-ready' ? (
      <>
        <strong>{t('banner.notSetUp')}</strong> {reason.problem || t('banner.chooseProvider')} {t('banner.modelOnly')}
      </>
    ) : (
      <>
        <strong>{t('banner.allFailed')}</strong> {sentence(reason.error)}
        {t('banner.checkProvider')}
      </>
    );
  return (
    <div className="search-banner" role="status" aria-label={t('search.legend')}>
      <AlertIcon size={16} />
      <div className="search-banner-text">{text}</div>
      <button type="button" className="btn btn-sm btn-primary" onClick={onOpenSettings}>
        {t('banner.openSettings')}
      </button>
      <button
        type="button"
        className="icon-btn"
        aria-label={t('banner.dismiss')}
        title={t('banner.dismiss')}
        onClick={() => setDismissed((d) => [...d, reasonKey(reason)])}
      >
        <XIcon size={14} />
      </button>
    </div>
  );
}
