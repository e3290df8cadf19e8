// The chat column's smaller parts: the header, the empty state with example questions, the
// "load earlier messages" row, the pending question and the Jump to latest button.
import type { ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { ContextMeter } from './ContextMeter';
import { ChevronIcon, Spinner } from '../shared/icons';

/** Props of ChatHeader. */
export interface ChatHeaderProps {
  conversationId: string | null;
  title: string;
  running: boolean;
  contextUsed: number;
  contextWindow: number;
  compactAtPercent: number;
  headStart?: ReactNode;
  headEnd?: ReactNode;
}

/** The chat column's header: title, "Researching" while a run goes, the context meter. */
export function ChatHeader(p: ChatHeaderProps) {
  const { t } = useTranslation('chat');
  return (
    <header className="chat-head">
      {p.headStart}
      <h1 className="chat-title">{p.conversationId === null ? t('newResearch') : p.title || t('common:untitled')}</h1>
      {p.running ? (
        <span className="pill pill-running">
          <Spinner size={11} /> {t('researching')}
        </span>
      ) : null}
      {p.conversationId !== null ? (
        <div className="chat-head-end">
          <ContextMeter used={p.contextUsed} window={p.contextWindow} compactAtPercent={p.compactAtPercent} />
        </div>
      ) : null}
      {p.headEnd}
    </header>
  );
}

/** Props of ChatEmptyState. */
export interface ChatEmptyStateProps {
  needsSetup: boolean;
  /** The send error already offers the settings. */
  hideSetup: boolean;
  onExample: (q: string) => void;
  onOpenSettings: () => void;
}

/** The start of a new research: what the app does, a setup note, example questions. */
export function ChatEmptyState({ needsSetup, hideSetup, onExample, onOpenSettings }: ChatEmptyStateProps) {
  const { t } = useTranslation('chat');
  const examples = [t('examples.batteries'), t('examples.databases'), t('examples.fasting'), t('examples.heatPumps')];
  return (
    <div className="empty">
      <h2>{t('empty.title')}</h2>
      <p>{t('empty.intro')}</p>
      {needsSetup && !hideSetup ? (
        <div className="setup-note">
          <span>{t('empty.setup')}</span>
          <button type="button" className="btn btn-primary btn-sm" onClick={onOpenSettings}>
            {t('common:openSettings')}
          </button>
        </div>
      ) : null}
      <div className="examples-label">{t('empty.examples')}</div>
      <div className="examples">
        {examples.map((q) => (
          <button key={q} type="button" className="example" onClick={() => onExample(q)}>
            {q}
          </button>
        ))}
      </div>
    </div>
  );
}

/** Props of OlderMessages. */
export interface OlderMessagesProps {
  sentinelRef: RefObject<HTMLDivElement | null>;
  loading: boolean;
  error: string;
  onLoad: () => void;
}

/** The row above the oldest exchange shown: loading, or a button to load earlier messages. */
export function OlderMessages({ sentinelRef, loading, error, onLoad }: OlderMessagesProps) {
  const { t } = useTranslation('chat');
  return (
    <div className="history-more" ref={sentinelRef}>
      {loading ? (
        <span className="muted small">
          <Spinner size={12} /> {t('history.loading')}
        </span>
      ) : (
        <>
          {error ? <span className="error-text small">{t('history.failed', { error })}</span> : null}
          <button type="button" className="btn btn-sm btn-ghost" onClick={onLoad}>
            {error ? t('history.tryAgain') : t('history.load')}
          </button>
        </>
      )}
    </div>
  );
}

/** A question being sent whose exchange has not shown up yet. */
export function PendingExchange({ question }: { question: string }) {
  const { t } = useTranslation('chat');
  return (
    <article className="exchange">
      <div className="question">{question}</div>
      <p className="working">
        <Spinner size={13} /> {t('starting')}
      </p>
    </article>
  );
}

/** The button shown while the reader is scrolled up from the newest content. */
export function JumpToLatest({ onJump }: { onJump: () => void }) {
  const { t } = useTranslation('chat');
  return (
    <div className="jump-latest-wrap">
      <button type="button" className="btn btn-sm jump-latest" onClick={onJump}>
        <ChevronIcon size={13} className="jump-latest-icon" /> {t('jumpToLatest')}
      </button>
    </div>
  );
}
