import type { ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { isSettingsError, type ApiError } from '../api/call';
import type { ConversationDetail } from '../api/conversations';
import { ExchangeList } from './ExchangeList';
import type { ChatItem } from './types';
import { useChatScroll } from './useChatScroll';
import { useContextSettings } from './useContextSettings';
import { pendingLocalQueued, useExchangeActions } from './useExchangeActions';
import { useShownItems } from './useShownItems';
import { allSearchesFailed } from '../sources/citations';
import { latestContextTokens } from './context-meter';
import { runWeb, type RunState } from '../run/events';
import { sendMarker } from './scroll';
import { ChatEmptyState, ChatHeader, JumpToLatest, OlderMessages, PendingExchange } from './ChatParts';
import { Composer } from './Composer';
import { DraftsBanner } from './DraftsBanner';
import { ErrorBox } from './ErrorBox';
import { Exchange } from './Exchange';
import { SearchBanner, useSearchStatus, type SearchBannerReason } from '../sources/SearchBanner';

export type { ChatItem } from './types';
export { AnswerFooter } from './AnswerParts';
export { ErrorBox, type ErrorBoxProps } from './ErrorBox';

/** Props of ChatView. */
export interface ChatViewProps {
  conversationId: string | null;
  title: string;
  items: ChatItem[];
  /** A question being sent whose run has not shown up yet. */
  pendingQuestion: string;
  loading: boolean;
  loadError: string;
  /** The last Send error; a settings error gets an "Open settings" button. */
  sendError: ApiError | null;
  sendErrorIsSettings: boolean;
  running: boolean;
  sending: boolean;
  draft: string;
  /** True when no model is configured yet (shown in the empty state). */
  needsSetup: boolean;
  onDraft: (v: string) => void;
  /** An example question was picked in the empty state. */
  onExample: (q: string) => void;
  onSend: () => void;
  onStop: () => void;
  onOpenSettings: () => void;
  onOpenArtifact: (id: string) => void;
  /** Titles of the conversation's artifacts by id, for the chips under an answer. */
  artifactTitles?: Readonly<Record<string, string>>;
  onDismissError: () => void;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  /** The conversation after a branch switch (ConversationService.SwitchBranch). */
  onDetail?: (d: ConversationDetail) => void;
  /** A recovered draft was kept: the artifact list changed. */
  onArtifactsChanged?: () => void;
  /** Shown at the start of the header (the sidebar's show/hide button). */
  headStart?: ReactNode;
  /** Shown at the end of the header (the panel's show/hide button). */
  headEnd?: ReactNode;
}

const NO_TITLES: Readonly<Record<string, string>> = {};

/** The search banner's reasons: web search not set up, or every search of the last finished run failed. */
function searchBanner(ready: boolean, problem: string, lastRun: RunState | undefined): SearchBannerReason[] {
  const lastWeb = lastRun !== undefined && lastRun.status !== 'running' ? runWeb(lastRun) : null;
  const banner: SearchBannerReason[] = [];
  if (!ready) banner.push({ kind: 'not-ready', problem });
  if (lastRun !== undefined && allSearchesFailed(lastWeb)) banner.push({ kind: 'all-failed', error: lastWeb?.errors[0] ?? '', messageId: lastRun.messageId });
  return banner;
}

/**
 * The middle column: the conversation (each question with its branch navigator, edit and
 * regenerate, compaction markers, activity flow, streamed answer, messages added during
 * the run, figures or error), the recovered-drafts banner, the empty state with example
 * questions, and the composer (which queues messages while a run is going). Past events
 * come from ConversationService.History, newest page first; older pages load when the
 * reader scrolls to the top.
 */
export function ChatView(p: ChatViewProps) {
  const { t } = useTranslation('chat');
  const ctx = useContextSettings();
  const cid = p.conversationId;
  const empty = cid === null && p.items.length === 0 && p.pendingQuestion === '';
  const { history, fallback, shownItems, hasOlder, runOf, revision } = useShownItems(cid, p.items, p.loading);
  const runningItem = [...shownItems].reverse().find((it) => (it.live?.status ?? it.message?.status) === 'running');
  const { scrollRef, sentinelRef, atBottom, onScroll, jumpToLatest, requestOlder, stickToBottom, follow, takeAnchor } = useChatScroll({
    conversationId: cid,
    asked: sendMarker(p.pendingQuestion, runningItem?.key),
    firstKey: shownItems[0]?.key ?? '',
    loadingOlder: history.loadingOlder,
    canLoadOlder: history.window?.hasBefore === true && !history.loadingOlder && history.olderError === '',
    windowFirst: history.window?.firstSeq ?? 0,
    loadOlder: history.loadOlder,
  });
  const actions = useExchangeActions({ conversationId: cid, running: p.running, draft: p.draft, onDraft: p.onDraft, onDetail: p.onDetail, stickToBottom });
  const pendingLocal = pendingLocalQueued(actions.localQueued, cid, shownItems.flatMap((it) => runOf(it)?.queued ?? []));
  const lastItem = shownItems.at(-1);
  const search = useSearchStatus(revision);
  const banner = searchBanner(search.ready, search.problem, lastItem !== undefined ? runOf(lastItem) : undefined);
  const exchangeProps = (it: ChatItem) => ({
    localQueued: it === runningItem || (runningItem === undefined && it.key === lastItem?.key) ? pendingLocal : [],
    editing: it.message !== undefined && actions.editing === it.message.id,
  });

  return (
    <main className="chat" aria-label={t('conversation')}>
      <ChatHeader
        conversationId={cid}
        title={p.title}
        running={p.running}
        contextUsed={latestContextTokens(shownItems.map(runOf))}
        contextWindow={ctx.window}
        compactAtPercent={ctx.percent}
        headStart={p.headStart}
        headEnd={p.headEnd}
      />
      <div className="chat-scroll" ref={scrollRef} onScroll={onScroll}>
        <div className="chat-inner">
          {empty ? <ChatEmptyState needsSetup={p.needsSetup} hideSetup={p.sendErrorIsSettings} onExample={p.onExample} onOpenSettings={p.onOpenSettings} /> : null}
          {cid !== null ? <DraftsBanner conversationId={cid} onKept={() => p.onArtifactsChanged?.()} /> : null}
          {p.loadError ? <ErrorBox title={t('openFailed')}>{p.loadError}</ErrorBox> : null}
          {p.loading && p.items.length === 0 ? <p className="muted center">{t('common:loading')}</p> : null}
          {hasOlder ? (
            <OlderMessages sentinelRef={sentinelRef} loading={history.loadingOlder || history.window === null} error={history.olderError} onLoad={requestOlder} />
          ) : null}
          {history.status === 'error' ? <p className="muted small center">{t('history.unavailable', { error: history.error })}</p> : null}
          <ExchangeList
            items={shownItems}
            scrollRef={scrollRef}
            afterRender={follow}
            takeAnchor={takeAnchor}
            renderItem={(it) => (
              <Exchange
                conversationId={cid ?? ''}
                item={it}
                run={runOf(it)}
                loadOwn={fallback}
                actionsDisabled={p.running || actions.busy !== ''}
                busy={actions.busy}
                {...exchangeProps(it)}
                artifactTitles={p.artifactTitles ?? NO_TITLES}
                onOpenArtifact={p.onOpenArtifact}
                onBranch={actions.goBranch}
                onEdit={actions.startEdit}
                onCancelEdit={actions.cancelEdit}
                onSubmitEdit={actions.submitEdit}
                onRegenerate={actions.doRegenerate}
                onOpenSettings={p.onOpenSettings}
                onReuse={(text) => {
                  p.onDraft(text);
                  p.composerRef.current?.focus();
                }}
              />
            )}
          />
          {p.pendingQuestion ? <PendingExchange question={p.pendingQuestion} /> : null}
          <ChatErrors
            actionError={actions.actionError}
            onDismissAction={actions.dismissActionError}
            sendError={p.sendError}
            sendErrorIsSettings={p.sendErrorIsSettings}
            onDismissSend={p.onDismissError}
            onOpenSettings={p.onOpenSettings}
          />
        </div>
        {!atBottom && !empty ? <JumpToLatest onJump={jumpToLatest} /> : null}
      </div>
      <Composer
        value={p.draft}
        onChange={p.onDraft}
        onSend={p.running && cid !== null ? actions.queue : p.onSend}
        onStop={p.onStop}
        running={p.running}
        sending={p.sending}
        textareaRef={p.composerRef}
        banner={<SearchBanner reasons={banner} onOpenSettings={p.onOpenSettings} />}
      />
    </main>
  );
}

/** Props of ChatErrors. */
interface ChatErrorsProps {
  actionError: { title: string; error: ApiError } | null;
  onDismissAction: () => void;
  sendError: ApiError | null;
  sendErrorIsSettings: boolean;
  onDismissSend: () => void;
  onOpenSettings: () => void;
}

/** The errors under the conversation: of the last exchange action, and of the last Send. */
function ChatErrors(p: ChatErrorsProps) {
  const { t } = useTranslation('chat');
  const settingsButton = (
    <button type="button" className="btn btn-primary btn-sm" onClick={p.onOpenSettings}>
      {t('common:openSettings')}
    </button>
  );
  const actionIsSettings = p.actionError !== null && isSettingsError(p.actionError.error);
  return (
    <>
      {p.actionError ? (
        <ErrorBox title={actionIsSettings ? t('notSetUp') : p.actionError.title} onDismiss={p.onDismissAction} action={actionIsSettings ? settingsButton : null}>
          {p.actionError.error.message}
        </ErrorBox>
      ) : null}
      {p.sendError ? (
        <ErrorBox title={p.sendErrorIsSettings ? t('notSetUp') : t('sendFailed')} onDismiss={p.onDismissSend} action={p.sendErrorIsSettings ? settingsButton : null}>
          {p.sendError.message}
        </ErrorBox>
      ) : null}
    </>
  );
}
