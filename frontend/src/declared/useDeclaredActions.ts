// What the panel's "Links & files" does with a declared artifact: open it, copy its link
// or path, reveal its file, remove it after a confirmation.

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { openDeclared, removeDeclared, revealDeclared, type DeclaredArtifact } from '../api/artifacts';
import { toApiError } from '../api/call';
import { copyText, isBrowserMode, openExternal } from '../api/runtime';
import { copyable, isWorkspace, webUrl, type Status } from './declared';

/** The actions on declared artifacts; each reports through `setStatus`. */
export interface DeclaredActions {
  /** A link in the system browser, a workspace file with the system's application; otherwise says why not. */
  open: (a: DeclaredArtifact) => void;
  copy: (a: DeclaredArtifact) => void;
  reveal: (a: DeclaredArtifact) => void;
}

/** Open, copy and reveal for the declared artifacts of `conversationId`. */
export function useDeclaredActions(conversationId: string, setStatus: (s: Status) => void): DeclaredActions {
  const { t } = useTranslation('artifacts');
  const fail = (what: string, e: unknown) => setStatus({ kind: 'error', text: t('declared.failed', { what, error: toApiError(e).message }) });

  const open = (a: DeclaredArtifact) => {
    setStatus(null);
    const url = webUrl(a);
    if (url !== '') {
      if (!openExternal(url)) setStatus({ kind: 'error', text: t('declared.cannotOpenLink') });
      return;
    }
    if (isWorkspace(a)) {
      if (isBrowserMode()) {
        setStatus({ kind: 'error', text: t('declared.browserNoFiles', { path: a.workspacePath }) });
        return;
      }
      openDeclared(conversationId, a.id).then(
        () => undefined,
        (e: unknown) => fail(t('declared.couldNotOpen', { path: a.workspacePath }), e),
      );
      return;
    }
    setStatus({
      kind: 'error',
      text: a.url !== '' ? t('declared.onlyWebLinks') : t('declared.clientKeeps'),
    });
  };

  const copy = (a: DeclaredArtifact) => {
    const { text, what } = copyable(a);
    void copyText(text).then((ok) =>
      setStatus(ok ? { kind: 'ok', text: what === 'path' ? t('declared.pathCopied') : t('declared.linkCopied') } : { kind: 'error', text: t('declared.copyFailed') }),
    );
  };

  const reveal = (a: DeclaredArtifact) => {
    setStatus(null);
    if (isBrowserMode()) {
      setStatus({ kind: 'error', text: t('declared.browserNoFolders', { path: a.workspacePath }) });
      return;
    }
    revealDeclared(conversationId, a.id).then(
      () => undefined,
      (e: unknown) => fail(t('declared.couldNotReveal', { path: a.workspacePath }), e),
    );
  };

  return { open, copy, reveal };
}

/** The declared artifact being removed (awaiting confirmation) and the actions on it. */
export interface RemoveState {
  removing: DeclaredArtifact | null;
  busy: boolean;
  error: string;
  /** Opens the confirmation for `a`. */
  ask: (a: DeclaredArtifact) => void;
  confirm: () => void;
  /** Closes the confirmation. */
  cancel: () => void;
}

/** Removes the declared artifact the user confirmed, then calls onRemoved with its id; an error stays in the confirmation. */
export function useRemoveDeclared(conversationId: string, onRemoved: (artifactId: string) => void): RemoveState {
  const [removing, setRemoving] = useState<DeclaredArtifact | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const confirm = () => {
    if (removing === null) return;
    const a = removing;
    setBusy(true);
    setError('');
    removeDeclared(conversationId, a.id).then(
      () => {
        setBusy(false);
        setRemoving(null);
        onRemoved(a.id);
      },
      (e: unknown) => {
        setBusy(false);
        setError(toApiError(e).message);
      },
    );
  };
  return {
    removing,
    busy,
    error,
    ask: (a) => {
      setError('');
      setRemoving(a);
    },
    confirm,
    cancel: () => setRemoving(null),
  };
}
