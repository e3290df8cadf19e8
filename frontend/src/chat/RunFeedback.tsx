// Thumbs up or down under a completed answer, with an optional note: the user's rating of
// the run, stored by the backend as a feedback event of the run (ConversationService.SetFeedback),
// so it stays with the run on its branch and after compaction.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import { setFeedback, type Feedback, type Rating } from '../api/conversations';
import { Svg, type IconProps } from '../shared/icons';
import { describeError } from '../shared/errors';
import './feedback.css';
import { focusOnMount } from '../shared/focus';

/** A raised thumb (a good answer). */
function ThumbUpIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M7 10v11H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1Z" />
      <path d="M7 10l4-7a2 2 0 0 1 3 2l-1 5h6a2 2 0 0 1 2 2.3l-1.4 7A2 2 0 0 1 17.6 21H7" />
    </Svg>
  );
}

/** A lowered thumb (a poor answer). */
function ThumbDownIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M17 14V3h3a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1Z" />
      <path d="M17 14l-4 7a2 2 0 0 1-3-2l1-5H5a2 2 0 0 1-2-2.3l1.4-7A2 2 0 0 1 6.4 3H17" />
    </Svg>
  );
}

/** Props of RunFeedback. */
export interface RunFeedbackProps {
  conversationId: string;
  messageId: string;
  /** The rating as the backend last gave it (MessageView.feedback); undefined: none. A new value replaces the one shown. */
  feedback: Feedback | undefined;
  /** A run is going in the conversation: rating waits until it ends. */
  disabled: boolean;
}

/**
 * The 👍 and 👎 buttons of one completed run (toggle buttons: aria-pressed shows the
 * rating; clicking the pressed one clears it) and, after a click that rates, a note field:
 * Enter saves the note, Escape closes it and keeps the note as it was. A saved note shows
 * beside the thumbs; clicking it opens the field again. Each change is saved at once; a
 * failure is shown and the rating stays as it was.
 */
export function RunFeedback({ conversationId, messageId, feedback, disabled }: RunFeedbackProps) {
  const { t } = useTranslation('chat');
  const [current, setCurrent] = useState<Feedback | undefined>(feedback);
  // A rating from the backend (a reload, another window, the event of our own save) replaces
  // the one shown, without closing the note field.
  const [given, setGiven] = useState(feedback);
  if (feedback?.rating !== given?.rating || feedback?.note !== given?.note || feedback?.at !== given?.at) {
    setGiven(feedback);
    setCurrent(feedback);
  }
  const [noteOpen, setNoteOpen] = useState(false);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const thumbs = useRef<HTMLDivElement>(null);
  const rating: Rating = current?.rating ?? '';

  const save = async (next: Rating, note: string): Promise<boolean> => {
    setBusy(true);
    setError('');
    try {
      setCurrent(await setFeedback(conversationId, messageId, next, note));
      return true;
    } catch (e: unknown) {
      setError(describeError(toApiError(e)));
      return false;
    } finally {
      setBusy(false);
    }
  };
  // Once the note field closes, focus goes back to the pressed thumb (after the render
  // that enables it again).
  const refocus = useRef(false);
  useEffect(() => {
    if (!refocus.current || busy) return;
    refocus.current = false;
    thumbs.current?.querySelector<HTMLButtonElement>('button[aria-pressed="true"]')?.focus();
  });
  const focusPressed = () => {
    refocus.current = true;
  };
  const onThumb = async (thumb: 'up' | 'down') => {
    if (thumb === rating) {
      setNoteOpen(false);
      await save('', '');
      return;
    }
    const note = current?.note ?? '';
    if (await save(thumb, note)) {
      setDraft(note);
      setNoteOpen(true);
    }
  };
  const saveNote = async () => {
    if (rating === '') return;
    if (await save(rating, draft)) {
      setNoteOpen(false);
      focusPressed();
    }
  };
  const onNoteKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void saveNote();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setNoteOpen(false);
      setError('');
      focusPressed();
    }
  };
  const waitTitle = disabled ? t('exchange.waitForRun') : undefined;

  return (
    <div className="run-feedback">
      <div className="feedback-thumbs" role="group" aria-label={t('feedback.group')} ref={thumbs}>
        {(['up', 'down'] as const).map((thumb) => (
          <button
            key={thumb}
            type="button"
            className={`icon-btn feedback-thumb${rating === thumb ? ' pressed' : ''}`}
            aria-pressed={rating === thumb}
            aria-label={t(thumb === 'up' ? 'feedback.up' : 'feedback.down')}
            title={waitTitle ?? t(rating === thumb ? 'feedback.clear' : thumb === 'up' ? 'feedback.up' : 'feedback.down')}
            disabled={disabled || busy}
            onClick={() => void onThumb(thumb)}
          >
            {thumb === 'up' ? <ThumbUpIcon size={14} /> : <ThumbDownIcon size={14} />}
          </button>
        ))}
      </div>
      {noteOpen ? (
        <span className="feedback-note-edit">
          <input
            type="text"
            className="input feedback-note-input"
            value={draft}
            maxLength={2000}
            ref={focusOnMount}
            aria-label={t('feedback.noteLabel')}
            placeholder={t('feedback.notePlaceholder')}
            disabled={busy}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onNoteKey}
          />
          <button type="button" className="btn btn-sm feedback-note-save" disabled={busy} onClick={() => void saveNote()}>
            {t('feedback.saveNote')}
          </button>
        </span>
      ) : current?.note ? (
        <button
          type="button"
          className="feedback-note"
          title={t('feedback.editNote')}
          disabled={disabled || busy}
          onClick={() => {
            setDraft(current.note);
            setNoteOpen(true);
          }}
        >
          {current.note}
        </button>
      ) : rating !== '' ? (
        <span className="feedback-saved muted small" role="status">
          {t(rating === 'up' ? 'feedback.savedUp' : 'feedback.savedDown')}
        </span>
      ) : null}
      {error ? (
        <span className="feedback-error small" role="alert">
          {t('feedback.failed', { error })}
        </span>
      ) : null}
    </div>
  );
}
