import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import { respondPermission, type PermissionReply } from '../api/chat';
import type { Conversation } from '../api/conversations';
import { pendingPermissions, type PendingPermission, type RunsState } from '../run/events';
import { parseMcpToolName } from '../shared/mcp-names';
import { ShieldIcon } from './conversation-icons';
import { Spinner } from '../shared/icons';
import { Modal } from '../shared/Modal';

/** Props of PermissionDialog. */
export interface PermissionDialogProps {
  runs: RunsState;
  /** The open conversation: its requests come first. */
  selectedId: string | null;
  /** For the title of a request from another conversation. */
  conversations: readonly Conversation[];
}

/**
 * Milliseconds left before the engine counts `ask` as denied, at `now` (ms since epoch):
 * from the request's created_at plus its timeout, or from `seenAt` when created_at is not a
 * time. Never negative.
 */
export function permissionRemaining(ask: Pick<PendingPermission, 'requestedAt' | 'timeoutMs'>, now: number, seenAt: number): number {
  const t = Date.parse(ask.requestedAt);
  const start = Number.isNaN(t) || t > now + 5_000 ? seenAt : t;
  return Math.max(0, start + ask.timeoutMs - now);
}

/** "m:ss" for a duration in ms, rounded up to the second. */
export function formatCountdown(ms: number): string {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  return `${String(Math.floor(total / 60))}:${String(total % 60).padStart(2, '0')}`;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

function Subject({ ask }: { ask: PendingPermission }) {
  const { t } = useTranslation('tools');
  const p = ask.params;
  const agent = <strong>{ask.agent}</strong>;
  if (ask.tool === 'web_fetch') {
    return (
      <>
        <p className="perm-what">
          <Trans t={t} i18nKey="permission.fetch" components={{ agent }} />
        </p>
        <code className="perm-param perm-url">{str(p.url)}</code>
      </>
    );
  }
  if (ask.tool === 'web_search') {
    return (
      <>
        <p className="perm-what">
          <Trans t={t} i18nKey="permission.search" components={{ agent }} />
        </p>
        <code className="perm-param">{str(p.query)}</code>
      </>
    );
  }
  const shown = JSON.stringify(p, null, 2);
  const mcp = parseMcpToolName(ask.tool);
  return (
    <>
      <p className="perm-what">
        {mcp !== null ? (
          <Trans t={t} i18nKey="permission.runMcp" components={{ agent, tool: <code>{mcp.tool}</code>, server: <strong>{mcp.server}</strong> }} />
        ) : (
          <Trans t={t} i18nKey="permission.run" components={{ agent, tool: <code>{ask.tool}</code> }} />
        )}
      </p>
      <pre className="perm-param perm-json">{shown.length > 2000 ? `${shown.slice(0, 2000)}…` : shown}</pre>
    </>
  );
}

/**
 * The modal that asks the user to allow a tool call set to "confirm" (permission_request):
 * the tool and its parameters (the URL of web_fetch, the query of web_search; an MCP tool
 * named by its own name and its server, whose every tool Always allow lets run), a countdown
 * to the engine's timeout (which counts as deny), and Approve (Enter), Deny (Esc) and
 * Always allow. It answers with ChatService.Respond and closes when permission_result
 * arrives; with several requests waiting it shows them one after another.
 */
export function PermissionDialog({ runs, selectedId, conversations }: PermissionDialogProps) {
  const { t } = useTranslation('tools');
  const pending = pendingPermissions(runs, selectedId);
  const ask = pending[0];
  const [seen, setSeen] = useState<Record<string, number>>({});
  const [now, setNow] = useState(() => Date.now());
  const [sent, setSent] = useState<{ id: string; decision: PermissionReply } | null>(null);
  const [error, setError] = useState<{ id: string; message: string } | null>(null);
  const id = ask?.requestId ?? '';
  const approveRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (id === '') return;
    const t = window.setInterval(() => setNow(Date.now()), 250);
    const first = window.setTimeout(() => {
      setNow(Date.now());
      setSeen((s) => (id in s ? s : { ...s, [id]: Date.now() }));
    }, 0);
    return () => {
      window.clearInterval(t);
      window.clearTimeout(first);
    };
  }, [id]);

  const answer = (decision: PermissionReply) => {
    if (!ask || sent?.id === ask.requestId) return;
    const conv = ask.conversationId;
    const rid = ask.requestId;
    setSent({ id: rid, decision });
    setError(null);
    respondPermission(conv, rid, decision).catch((e: unknown) => {
      setSent(null);
      setError({ id: rid, message: toApiError(e).message });
    });
  };

  // Enter approves unless a button of the dialog's footer has focus (it answers itself).
  const onEnter = useEffectEvent((e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || e.isComposing) return;
    const t = e.target as HTMLElement | null;
    if (t?.closest('.modal-foot button')) return;
    e.preventDefault();
    e.stopPropagation();
    answer('approve');
  });
  useEffect(() => {
    if (id === '') return;
    // The native dialog focuses its first button (Close) on open; Approve is the default.
    approveRef.current?.focus();
    const h = (e: KeyboardEvent) => onEnter(e);
    document.addEventListener('keydown', h, true);
    return () => document.removeEventListener('keydown', h, true);
  }, [id]);

  if (!ask) return null;
  const busy = sent?.id === id;
  const failed = error?.id === id ? error.message : '';
  const remaining = permissionRemaining(ask, now, seen[id] ?? now);
  const share = ask.timeoutMs > 0 ? remaining / ask.timeoutMs : 0;
  const other = ask.conversationId !== selectedId ? conversations.find((c) => c.id === ask.conversationId) : undefined;
  const mcp = parseMcpToolName(ask.tool);

  return (
    <Modal
      title={mcp !== null ? t('permission.titleMcp', { tool: mcp.tool, server: mcp.server }) : t('permission.title', { tool: ask.tool })}
      onClose={() => answer('deny')}
      className="modal-small modal-permission"
      footer={
        <>
          <button type="button" className="btn" onClick={() => answer('deny')} disabled={busy}>
            {busy && sent.decision === 'deny' ? <Spinner size={13} /> : null}
            {t('permission.deny')} <kbd>Esc</kbd>
          </button>
          <button type="button" className="btn" onClick={() => answer('always_allow')} disabled={busy}>
            {busy && sent.decision === 'always_allow' ? <Spinner size={13} /> : null}
            {t('permission.alwaysAllow')}
          </button>
          <button type="button" className="btn btn-primary" ref={approveRef} onClick={() => answer('approve')} disabled={busy}>
            {busy && sent.decision === 'approve' ? <Spinner size={13} /> : null}
            {t('permission.approve')} <kbd className="kbd-on-primary">Enter</kbd>
          </button>
        </>
      }
    >
      <div className="perm-body">
        <div className="perm-head">
          <ShieldIcon size={18} />
          <span>
            {mcp !== null ? (
              <Trans t={t} i18nKey="permission.pausedMcp" components={{ server: <strong>{mcp.server}</strong> }} />
            ) : (
              <Trans t={t} i18nKey="permission.paused" components={{ tool: <code>{ask.tool}</code> }} />
            )}
            {other ? (
              <>
                {' '}
                <Trans t={t} i18nKey="permission.inConversation" components={{ title: <strong>{other.title || t('common:untitled')}</strong> }} />
              </>
            ) : null}
          </span>
        </div>
        <Subject ask={ask} />
        <div
          className={`perm-countdown${share < 0.25 ? ' low' : ''}`}
          role="timer"
          aria-label={t('permission.deniedIn', { time: formatCountdown(remaining) })}
        >
          <div className="perm-countdown-bar" aria-hidden="true">
            <span style={{ width: `${String(Math.round(share * 1000) / 10)}%` }} />
          </div>
          <span className="perm-countdown-text">
            {remaining > 0 ? t('permission.deniedIn', { time: formatCountdown(remaining) }) : t('permission.timeUp')}
          </span>
        </div>
        <p className="hint">
          {mcp !== null ? t('permission.alwaysHintMcp', { server: mcp.server }) : t('permission.alwaysHint', { tool: ask.tool })}
          {pending.length > 1 ? ` ${t('permission.moreWaiting', { count: pending.length - 1 })}` : ''}
        </p>
        {failed ? (
          <p className="field-error" role="alert">
            {failed}
          </p>
        ) : null}
      </div>
    </Modal>
  );
}
