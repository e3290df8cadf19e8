import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { discardDraft, keepDraft, listDrafts, type Draft } from '../api/artifacts';
import { toApiError } from '../api/call';
import { clip, formatBytes, relativeTime } from '../shared/format';
import { i18n } from '../i18n/i18n';
import { RecoverIcon } from './conversation-icons';
import { ChevronIcon, Spinner } from '../shared/icons';
import { Markdown } from '../markdown/Markdown';

/** Props of DraftsBanner. */
export interface DraftsBannerProps {
  conversationId: string;
  /** Called after a draft was kept (the artifact list changed). */
  onKept: () => void;
}

/** The banner's headline for `n` recovered drafts, in the UI's language. */
export function draftsHeadline(n: number): string {
  return i18n.t('artifacts:drafts.headline', { count: n });
}

const keyOf = (d: Draft) => `${d.message_id}/${d.artifact_id}`;

/**
 * Offers the recovered drafts of a conversation (ArtifactService.Drafts: unsaved artifact
 * changes of a run the app did not finish) when it is opened: a banner with each draft,
 * a preview, Keep (saved as a new version) and Discard. Renders nothing when there are none.
 */
export function DraftsBanner({ conversationId, onKept }: DraftsBannerProps) {
  const { t } = useTranslation('artifacts');
  const [state, setState] = useState<{ conversationId: string; drafts: Draft[] } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ key: string; message: string } | null>(null);

  useEffect(() => {
    let stale = false;
    listDrafts(conversationId).then(
      (drafts) => {
        if (!stale) setState({ conversationId, drafts });
      },
      () => {
        // An older backend without drafts, or a passing error: nothing to offer.
        if (!stale) setState({ conversationId, drafts: [] });
      },
    );
    return () => {
      stale = true;
    };
  }, [conversationId]);

  const drafts = state?.conversationId === conversationId ? state.drafts : [];
  if (drafts.length === 0) return null;

  const act = (d: Draft, keep: boolean) => {
    const key = keyOf(d);
    setBusy(key);
    setError(null);
    (keep ? keepDraft(conversationId, d.artifact_id, d.message_id) : discardDraft(conversationId, d.artifact_id, d.message_id)).then(
      () => {
        setBusy(null);
        setState((s) => (s ? { ...s, drafts: s.drafts.filter((x) => keyOf(x) !== key) } : s));
        if (keep) onKept();
      },
      (e: unknown) => {
        setBusy(null);
        setError({ key, message: toApiError(e).message });
      },
    );
  };

  return (
    <section className="drafts-banner" aria-label={t('drafts.label')} role="region">
      <div className="drafts-head">
        <RecoverIcon size={18} />
        <div>
          <strong>{draftsHeadline(drafts.length)}</strong>
          <p>{t('drafts.help')}</p>
        </div>
      </div>
      <ul className="drafts-list">
        {drafts.map((d) => {
          const key = keyOf(d);
          const isOpen = open === key;
          const markdown = d.content_type === 'text/markdown' || d.content_type === '';
          return (
            <li key={key} className="draft">
              <div className="draft-row">
                <button
                  type="button"
                  className="draft-toggle"
                  aria-expanded={isOpen}
                  title={isOpen ? t('drafts.hidePreview') : t('drafts.preview')}
                  onClick={() => setOpen(isOpen ? null : key)}
                >
                  <ChevronIcon size={12} className={isOpen ? 'chev open' : 'chev'} />
                  <span className="draft-title">{d.title || d.artifact_id}</span>
                  <span className="draft-meta">
                    <code>{d.artifact_id}</code> · {formatBytes(d.size)} ·{' '}
                    {d.base_version === 0 ? t('drafts.newArtifact') : t('drafts.changesTo', { version: d.base_version })}
                    {d.current_version > d.base_version && d.base_version > 0 ? t('drafts.now', { version: d.current_version }) : ''}
                    {d.saved_at ? ` · ${relativeTime(d.saved_at)}` : ''}
                  </span>
                </button>
                <div className="draft-actions">
                  <button type="button" className="btn btn-sm btn-primary" disabled={busy !== null} onClick={() => act(d, true)}>
                    {busy === key ? <Spinner size={12} /> : null}
                    {t('drafts.keep')}
                  </button>
                  <button type="button" className="btn btn-sm" disabled={busy !== null} onClick={() => act(d, false)}>
                    {t('drafts.discard')}
                  </button>
                </div>
              </div>
              {d.question ? <div className="draft-question">{t('drafts.fromQuestion', { question: clip(d.question, 120) })}</div> : null}
              {isOpen ? (
                <div className="draft-preview" aria-label={t('drafts.previewOf', { title: d.title || d.artifact_id })}>
                  {markdown ? <Markdown source={d.content} /> : <pre className="plain">{d.content}</pre>}
                </div>
              ) : null}
              {error?.key === key ? (
                <p className="field-error" role="alert">
                  {error.message}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
