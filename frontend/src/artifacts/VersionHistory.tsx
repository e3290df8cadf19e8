// The artifact viewer's History tab.

import { useTranslation } from 'react-i18next';
import type { ArtifactVersion } from '../api/artifacts';
import { formatBytes, relativeTime } from '../shared/format';
import { currentLocale } from '../i18n/i18n';
import { currentIsExtra, draftExplained, draftsNote, fuzzyNote, versionQuestion, versionTitle, type CurrentState, type VersionRef } from './versions';
import { CompareIcon, EyeIcon } from './artifact-icons';
import { Spinner } from '../shared/icons';

/** Props of History. */
export interface HistoryProps {
  versions: ArtifactVersion[];
  loading: boolean;
  error: string;
  state: CurrentState;
  restoredFrom: ReadonlyMap<number, number>;
  shown: VersionRef;
  onView: (v: VersionRef) => void;
  onCompare: (v: VersionRef) => void;
}

/**
 * The History tab: the stored versions, newest first, each with its title, time, question,
 * live drafts, size, View and Compare with current; a current state not (yet) stored comes first.
 */
export function History({ versions, loading, error, state, restoredFrom, shown, onView, onCompare }: HistoryProps) {
  const { t } = useTranslation('artifacts');
  const extra = currentIsExtra(versions, state);
  if (error) return <p className="error-text">{t('history.loadFailed', { error })}</p>;
  if (loading && versions.length === 0) {
    return (
      <p className="placeholder">
        <Spinner size={12} /> {t('history.loading')}
      </p>
    );
  }
  return (
    <ol className="history" aria-label={t('history.label')}>
      {extra ? (
        <li className={`history-item current${shown === 'current' ? ' viewing' : ''}`}>
          <div className="history-head">
            <span className="history-v">v{state.version}</span>
            <span className="history-type">{state.unsaved ? t('history.changing') : t('history.current')}</span>
            <span className="badge badge-warn">{state.unsaved ? t('history.badgeDraft') : t('history.badgeCurrent')}</span>
          </div>
          <div className="history-q muted">{state.unsaved ? draftExplained() : t('history.notStored')}</div>
        </li>
      ) : null}
      {[...versions].reverse().map((v) => {
        const isCurrent = !extra && v.version === state.version;
        const ref: VersionRef = isCurrent ? 'current' : v.version;
        const question = versionQuestion(v);
        const drafts = draftsNote(versions, v);
        const fuzzy = fuzzyNote(v);
        const exact = new Date(v.created_at);
        return (
          <li key={v.version} className={`history-item${shown === ref ? ' viewing' : ''}`}>
            <div className="history-head">
              <span className="history-v">v{v.version}</span>
              <span className="history-type">{versionTitle(v, restoredFrom.get(v.version))}</span>
              {isCurrent ? <span className="badge badge-agent">{t('history.badgeCurrent')}</span> : null}
              <time className="history-time" dateTime={v.created_at} title={Number.isNaN(exact.getTime()) ? v.created_at : exact.toLocaleString(currentLocale())}>
                {relativeTime(v.created_at)}
              </time>
            </div>
            {question ? (
              <div className="history-q" title={t('history.questionTitle')}>
                “{question}”
              </div>
            ) : null}
            {drafts ? <div className="history-q muted history-drafts">{drafts}</div> : null}
            {fuzzy ? <div className="history-q history-fuzzy">{fuzzy}</div> : null}
            <div className="history-foot">
              <span className="muted">{formatBytes(v.size)}</span>
              <span className="history-actions">
                <button type="button" className="link-btn" onClick={() => onView(ref)} aria-label={t('history.viewAria', { version: v.version })}>
                  <EyeIcon size={13} /> {t('history.view')}
                </button>
                {!isCurrent ? (
                  <button type="button" className="link-btn" onClick={() => onCompare(ref)} aria-label={t('history.compareAria', { version: v.version })}>
                    <CompareIcon size={13} /> {t('history.compareWithCurrent')}
                  </button>
                ) : null}
              </span>
            </div>
          </li>
        );
      })}
      {versions.length === 0 && !extra ? <li className="placeholder">{t('history.none')}</li> : null}
    </ol>
  );
}
