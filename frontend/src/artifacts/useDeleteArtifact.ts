// Deleting a document from the artifact panel, after a confirmation.

import { useState } from 'react';
import { deleteArtifact } from '../api/artifacts';
import { toApiError } from '../api/call';
import type { ArtifactRow } from './rows';

/** The document being deleted (awaiting confirmation) and the actions on it. */
export interface DeleteState {
  /** The row the confirmation asks about; null when none is open. */
  deleting: ArtifactRow | null;
  busy: boolean;
  error: string;
  /** Opens the confirmation for `row`. */
  ask: (row: ArtifactRow) => void;
  confirm: () => void;
  cancel: () => void;
}

/** Deletes the artifact the user confirmed, then calls onDeleted with its id; an error stays in the confirmation. */
export function useDeleteArtifact(conversationId: string | null, onDeleted?: (artifactId: string) => void): DeleteState {
  const [deleting, setDeleting] = useState<ArtifactRow | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const confirm = () => {
    if (deleting === null || conversationId === null) return;
    const id = deleting.id;
    setBusy(true);
    setError('');
    deleteArtifact(conversationId, id).then(
      () => {
        setBusy(false);
        setDeleting(null);
        onDeleted?.(id);
      },
      (e: unknown) => {
        setBusy(false);
        setError(toApiError(e).message);
      },
    );
  };
  return {
    deleting,
    busy,
    error,
    ask: (row) => {
      setError('');
      setDeleting(row);
    },
    confirm,
    cancel: () => setDeleting(null),
  };
}
