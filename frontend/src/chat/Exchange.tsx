// One exchange of the conversation: the question (with branch, edit), the run's warnings
// (a skipped agent file), compaction markers, the activity flow, the answer with its
// footer, messages added during the run, how the run ended (error, stopped,
// interrupted, figures, artifacts it changed) and, once complete, the user's rating of it.
import type { ImageRef } from './images';
import { QuestionPictures } from './Pictures';
import { useTranslation } from 'react-i18next';
import { localizeRun } from '../run/localize';
import { RunFeedback } from './RunFeedback';
import type { ChatItem, LocalQueued } from './types';
import { usePastRun } from './usePastRun';
import { splitAnswer, type AnswerParts } from '../sources/citations';
import { endedRun, visibleText, type RunState } from '../run/events';
import { ActivityFlow } from './ActivityFlow';
import { AddedMessage, AnswerFooter, Figures, Reasoning } from './AnswerParts';
import { TASK_PLAN_ID } from '../artifacts/ArtifactPanel';
import { BranchNav } from './BranchNav';
import { CompactionMarker } from './CompactionMarker';
import { PencilIcon, RefreshIcon } from './conversation-icons';
import { CopyButton } from '../markdown/CopyButton';
import { ErrorBox } from './ErrorBox';
import { AlertIcon, DocIcon, Spinner, StoppedIcon } from '../shared/icons';
import { Markdown } from '../markdown/Markdown';
import { QuestionEditor } from './QuestionEditor';
import { RunError } from './RunError';
import { RunWarnings } from './RunWarnings';

/** Props of Exchange. */
export interface ExchangeProps {
  conversationId: string;
  item: ChatItem;
  /** The run seen live, or rebuilt from the loaded history. */
  run: RunState | undefined;
  /** Load the run's events on its own (no History in this backend). */
  loadOwn: boolean;
  /** Branch, edit and regenerate are off (a run is going, or one of them is under way). */
  actionsDisabled: boolean;
  busy: string;
  editing: boolean;
  /** Messages sent during this run that its events do not list yet. */
  localQueued: LocalQueued[];
  /** Titles of the conversation's artifacts by id; a chip falls back to the id. */
  artifactTitles: Readonly<Record<string, string>>;
  onOpenArtifact: (id: string) => void;
  onBranch: (messageId: string) => void;
  onEdit: (messageId: string) => void;
  onCancelEdit: () => void;
  /** Edit and resend: the new text; `images` are the edited question's pictures (artifact ids), kept with it. */
  onSubmitEdit: (messageId: string, content: string, images: string[]) => void;
  onRegenerate: (messageId: string) => void;
  /** Opens the Settings dialog (the fix a model error offers). */
  onOpenSettings: () => void;
  /** Put text back into the composer (a message the run did not take). */
  onReuse: (text: string) => void;
  /**
   * Set on the latest exchange while no run is going: its run's follow-up questions show
   * under the answer, and picking one calls this with its text (absent: none shown).
   */
  onFollowUp?: (question: string) => void;
}

/** What an exchange shows, worked out from its stored message, live run and rebuilt run. */
function exchangeView(x: ExchangeProps, pastRun: RunState | undefined) {
  const { message, live } = x.item;
  const stored = message?.status ?? 'complete';
  const rebuilt = x.run ?? pastRun;
  // The store knows a run ended (interrupted runs have no terminal event) even when its events do not say so.
  const run =
    rebuilt?.status === 'running' && (stored === 'interrupted' || (live === undefined && stored !== 'running')) ? endedRun(rebuilt) : rebuilt;
  const status = live?.status === 'running' && stored === 'interrupted' ? stored : (live?.status ?? stored);
  const running = status === 'running';
  const answer = visibleText(live?.answer || message?.response || (running ? '' : (run?.answer ?? '')));
  // A finished answer ends with the engine's footer (failures, cited sources); a streaming
  // one has none yet.
  const parts: AnswerParts = running ? { body: answer, failures: '', sources: [] } : splitAnswer(answer);
  const queued = run?.queued ?? [];
  return {
    run,
    status,
    running,
    answer,
    parts,
    question: message?.content || live?.question || run?.question || '',
    images: message && message.images.length > 0 ? message.images : (run?.images ?? []),
    error: live?.error || message?.error || '',
    errorCode: live?.errorCode || run?.errorCode || '',
    delivered: queued.filter((q) => q.status === 'delivered'),
    waiting: queued.filter((q) => q.status === 'queued'),
    dropped: queued.filter((q) => q.status === 'dropped'),
  };
}

/** One exchange of the conversation (see the file's comment). */
export function Exchange(x: ExchangeProps) {
  const { t, i18n } = useTranslation('chat');
  const { message, live } = x.item;
  const { ref, past } = usePastRun(x.conversationId, message?.id ?? '', x.loadOwn && x.run === undefined && message !== undefined);
  const v = exchangeView(x, past?.run);
  const { run, running, answer, parts } = v;
  const reasoning = run?.reasoning ?? '';
  // Activity notes applied in another language read in the current one.
  const flowRun = run ? localizeRun(run, i18n.language) : undefined;
  return (
    <article className={`exchange status-${v.status}`} ref={ref} data-message-id={message?.id}>
      <QuestionBlock x={x} question={v.question} images={v.images} />
      {run && run.warnings.length > 0 ? <RunWarnings warnings={run.warnings} codes={run.warningCodes} onOpenSettings={x.onOpenSettings} /> : null}
      {(run?.compactions ?? []).map((c) => (
        <CompactionMarker key={`${String(c.seq)}-${c.agent}`} c={c} />
      ))}
      {flowRun ? <ActivityFlow run={flowRun} live={live !== undefined} /> : null}
      {past?.error ? <p className="muted small">{t('exchange.activityUnavailable', { error: past.error })}</p> : null}
      {v.delivered.map((q) => (
        <AddedMessage key={q.id} q={q} />
      ))}
      {reasoning ? <Reasoning text={reasoning} streaming={running && answer === ''} /> : null}
      {parts.body ? (
        <Markdown source={parts.body} className={running ? 'answer streaming' : 'answer'} cite copyCode />
      ) : running ? (
        <p className="working">
          <Spinner size={13} /> {t('exchange.working')}
        </p>
      ) : null}
      <AnswerFooter parts={parts} />
      {v.waiting.map((q) => (
        <AddedMessage key={q.id} q={q} />
      ))}
      {x.localQueued.map((q) => (
        <AddedMessage key={q.key} q={{ id: q.key, content: q.content, status: 'queued', seq: 0 }} sending={q.queuedId === ''} />
      ))}
      {v.dropped.map((q) => (
        <AddedMessage key={q.id} q={q} onReuse={() => x.onReuse(q.content)} />
      ))}
      {v.status === 'error' ? (
        <RunError
          code={v.errorCode}
          message={v.error}
          onOpenSettings={x.onOpenSettings}
          onRetry={message ? () => x.onRegenerate(message.id) : undefined}
          retryDisabled={x.actionsDisabled}
        />
      ) : null}
      <RunEnd status={v.status} run={run} />
      {!running ? <ArtifactChips ids={run?.artifactIds ?? []} titles={x.artifactTitles} onOpen={x.onOpenArtifact} /> : null}
      {!running && (run?.figures || message) ? <RunFoot x={x} run={run} answer={answer} /> : null}
      {message && v.status === 'complete' ? (
        <RunFeedback
          key={message.id}
          conversationId={x.conversationId}
          messageId={message.id}
          feedback={message.feedback}
          disabled={x.actionsDisabled}
        />
      ) : null}
      {!running && x.onFollowUp && run && run.suggestions.length > 0 ? <FollowUps questions={run.suggestions} onPick={x.onFollowUp} /> : null}
    </article>
  );
}

/**
 * The follow-up questions under the latest answer: one button each (Tab reaches them, Enter
 * or Space picks). Picking puts the question in the composer, focused, rather than sending
 * it: a research run takes minutes and costs tokens, so one click should not start one the
 * user may want to adjust first.
 */
export function FollowUps({ questions, onPick }: { questions: readonly string[]; onPick: (q: string) => void }) {
  const { t } = useTranslation('chat');
  return (
    <div className="follow-ups" role="group" aria-label={t('followUps.label')}>
      <span className="follow-ups-label">{t('followUps.label')}</span>
      {questions.map((q) => (
        <button key={q} type="button" className="follow-up" title={t('followUps.pickTitle')} onClick={() => onPick(q)}>
          {q}
        </button>
      ))}
    </div>
  );
}

/** The question with its branch navigator and Edit button, or its inline editor. */
function QuestionBlock({ x, question, images }: { x: ExchangeProps; question: string; images: readonly ImageRef[] }) {
  const { t } = useTranslation('chat');
  const message = x.item.message;
  if (x.editing && message) {
    const images = message.images.map((im) => im.artifact_id);
    return <QuestionEditor initial={message.content} busy={x.busy === 'edit'} onCancel={x.onCancelEdit} onSubmit={(text) => x.onSubmitEdit(message.id, text, images)} />;
  }
  const siblings = message?.sibling_ids ?? [];
  return (
    <div className="question-wrap">
      <QuestionPictures conversationId={x.conversationId} images={images} onOpen={x.onOpenArtifact} />
      <div className="question">{question}</div>
      {message ? (
        <div className="question-actions">
          <BranchNav
            index={message.sibling_index}
            count={siblings.length}
            disabled={x.actionsDisabled}
            onGo={(i) => {
              const id = siblings[i];
              if (id !== undefined) x.onBranch(id);
            }}
          />
          <button
            type="button"
            className="icon-btn msg-action"
            aria-label={t('edit.label')}
            title={x.actionsDisabled ? t('exchange.waitForRun') : t('exchange.editTitle')}
            disabled={x.actionsDisabled}
            onClick={() => x.onEdit(message.id)}
          >
            <PencilIcon size={14} />
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** How a run that did not complete ended (stopped, interrupted), and artifacts it failed to save. */
function RunEnd({ status, run }: { status: string; run: RunState | undefined }) {
  const { t } = useTranslation('chat');
  const reason = run?.reason ?? '';
  // "stopped by the user" says nothing the word Stopped does not.
  const shownReason = /stopped by the user|context canceled/i.test(reason) ? '' : reason;
  return (
    <>
      {status === 'cancelled' ? (
        <div className="run-stopped" title={reason || undefined}>
          <StoppedIcon size={14} /> {shownReason ? t('exchange.stoppedReason', { reason: shownReason }) : t('exchange.stopped')}
        </div>
      ) : null}
      {status === 'interrupted' ? (
        <div className="run-stopped run-interrupted" role="status">
          <AlertIcon size={14} />
          <span>
            <strong>{t('exchange.interrupted')}</strong> — {t('exchange.interruptedDetail')}
          </span>
        </div>
      ) : null}
      {run && run.flushFailed.length > 0 ? <ErrorBox title={t('exchange.notSaved')}>{run.flushFailed.join(', ')}</ErrorBox> : null}
    </>
  );
}

/** Chips of the deliverables a run changed (the task plan is always on show in the panel). */
function ArtifactChips({ ids, titles, onOpen }: { ids: string[]; titles: Readonly<Record<string, string>>; onOpen: (id: string) => void }) {
  const { t } = useTranslation('chat');
  const deliverables = ids.filter((id) => id !== TASK_PLAN_ID);
  if (deliverables.length === 0) return null;
  return (
    <div className="run-artifacts" aria-label={t('exchange.artifacts')}>
      {deliverables.map((id) => {
        const name = titles[id] || id;
        return (
          <button key={id} type="button" className="chip" onClick={() => onOpen(id)} title={name === id ? t('exchange.showId', { id }) : t('exchange.showNamed', { name, id })}>
            <DocIcon size={13} />
            {name}
          </button>
        );
      })}
    </div>
  );
}

/** The foot of a finished exchange: figures, Copy answer, Regenerate. */
function RunFoot({ x, run, answer }: { x: ExchangeProps; run: RunState | undefined; answer: string }) {
  const { t } = useTranslation('chat');
  const message = x.item.message;
  return (
    <div className="run-foot">
      {run?.figures ? <Figures run={run} /> : <span />}
      {answer.trim() !== '' ? <CopyButton text={() => answer.trim()} label={t('exchange.copyAnswer')} className="msg-copy" /> : null}
      {message ? (
        <button
          type="button"
          className="btn btn-sm btn-ghost msg-regenerate"
          title={x.actionsDisabled ? t('exchange.waitForRun') : t('exchange.regenerateTitle')}
          disabled={x.actionsDisabled}
          onClick={() => x.onRegenerate(message.id)}
        >
          {x.busy === 'regenerate' ? <Spinner size={12} /> : <RefreshIcon size={13} />}
          {t('exchange.regenerate')}
        </button>
      ) : null}
    </div>
  );
}
