import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ArtifactVersion } from '../api/artifacts';
import { diffTexts } from './diff';
import { relativeTime } from '../shared/format';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { refLabel, updateTypeLabel, versionChoices, type CurrentState, type VersionRef } from './versions';
import { SwapIcon } from './artifact-icons';
import { useVersionContent, type ContentState } from './artifactData';
import { DiffView, type DiffMode } from './DiffView';
import { Spinner } from '../shared/icons';
import { Modal } from '../shared/Modal';

/** Props of CompareDialog. */
export interface CompareDialogProps {
  conversationId: string;
  artifactId: string;
  title: string;
  /** Stored versions, oldest first. */
  versions: ArtifactVersion[];
  current: CurrentState;
  currentContent: ContentState;
  /** The pair to open with, older first (see defaultComparePair). */
  initial: [VersionRef, VersionRef];
  onClose: () => void;
}

const toValue = (r: VersionRef) => (r === 'current' ? 'current' : String(r));
const fromValue = (v: string): VersionRef => (v === 'current' ? 'current' : Number(v));

/**
 * Compare two versions of an artifact in a wide dialog: any two of the stored versions and
 * the current content, side by side or inline, with counts of added and removed lines.
 * Esc or the close button closes it.
 */
export function CompareDialog(p: CompareDialogProps) {
  const { t } = useTranslation('artifacts');
  const [[from, to], setPair] = useState<[VersionRef, VersionRef]>(p.initial);
  const [mode, setMode] = useState<DiffMode>('side');
  const choices = versionChoices(p.versions, p.current);
  const a = useVersionContent(p.conversationId, p.artifactId, from, p.currentContent);
  const b = useVersionContent(p.conversationId, p.artifactId, to, p.currentContent);
  const ready = !a.loading && !b.loading && a.error === '' && b.error === '';
  const model = useMemo(() => (ready ? diffTexts(a.content, b.content) : null), [ready, a.content, b.content]);

  const caption = (r: VersionRef) => {
    if (r === 'current') return refLabel(r, p.current) + (p.current.unsaved ? t('compare.unsaved') : '');
    const v = p.versions.find((x) => x.version === r);
    if (!v) return refLabel(r, p.current);
    const when = relativeTime(v.created_at);
    return `${refLabel(r, p.current)} · ${updateTypeLabel(v.update_type)}${when ? ` · ${when}` : ''}`;
  };

  const select = (label: string, value: VersionRef, onChange: (r: VersionRef) => void) => (
    <label className="compare-pick">
      <span className="compare-pick-label">{label}</span>
      <select className="select" value={toValue(value)} onChange={(e) => onChange(fromValue(e.target.value))} aria-label={t('compare.pickLabel', { side: label })}>
        {choices.map((c) => (
          <option key={toValue(c.ref)} value={toValue(c.ref)}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <Modal title={t('compare.title', { title: p.title })} onClose={p.onClose} className="modal-wide modal-compare">
      <div className="compare-bar">
        <div className="compare-picks">
          {select(t('compare.from'), from, (r) => setPair([r, to]))}
          <button type="button" className="icon-btn" onClick={() => setPair([to, from])} aria-label={t('compare.swapLabel')} title={t('compare.swap')}>
            <SwapIcon />
          </button>
          {select(t('compare.to'), to, (r) => setPair([from, r]))}
        </div>
        <div className="segmented" role="radiogroup" aria-label={t('compare.layout')}>
          {(['side', 'inline'] as const).map((m) => (
            <label key={m} className={mode === m ? 'active' : ''}>
              <input type="radio" name="diff-mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
              {m === 'side' ? t('compare.side') : t('compare.inline')}
            </label>
          ))}
        </div>
        <div className="compare-stats" aria-live="polite">
          {model === null ? null : model.identical ? (
            <span className="muted">{t('compare.noDifferences')}</span>
          ) : (
            <>
              <span className="stat-add" title={t('compare.linesAdded')}>
                +{model.added}
              </span>
              <span className="stat-del" title={t('compare.linesRemoved')}>
                −{model.removed}
              </span>
              <span className="muted">{t('compare.lines')}</span>
            </>
          )}
        </div>
      </div>
      <div className="diff-scroll" tabIndex={0} aria-label={t('compare.differences')}>
        {a.error || b.error ? (
          <p className="error-text" role="alert">
            {a.error || b.error}
          </p>
        ) : model === null ? (
          <p className="placeholder">
            <Spinner size={12} /> {t('history.loading')}
          </p>
        ) : (
          <DiffView model={model} mode={mode} labels={[caption(from), caption(to)]} />
        )}
      </div>
    </Modal>
  );
}
