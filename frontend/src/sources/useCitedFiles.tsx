// What a click on the citation of a local file does: an upload shows in the artifact panel,
// a workspace file opens with the system's application (desktop only); a failure is said
// in a notice.

import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { openSourceFile } from '../api/artifacts';
import { toApiError } from '../api/call';
import { isBrowserMode } from '../api/runtime';
import { uploadArtifactId, type Source } from './citations';
import { describeError } from '../shared/errors';
import type { Column } from '../layout/useLayout';

/** The cited-file actions of the open conversation (useCitedFiles). */
export interface CitedFiles {
  /** Opens a cited file source (CitationProvider's onOpenFile). */
  open: (s: Source) => void;
  /** Why the last file could not be opened, in the UI's language ("" for none). */
  notice: string;
  clear: () => void;
}

/**
 * Opens cited local files of `conversationId`: an upload ("@uploads/<id>") is selected in
 * the artifact panel (`select`), which is expanded when collapsed; a workspace file goes to
 * ArtifactService.OpenSourceFile (refused in browser mode, which is said without asking).
 */
export function useCitedFiles(
  conversationId: string | null,
  select: (artifactId: string) => void,
  layout: { layout: { panelCollapsed: boolean }; toggle: (c: Column) => void },
): CitedFiles {
  const { t } = useTranslation('sources');
  const [notice, setNotice] = useState('');
  const { panelCollapsed } = layout.layout;
  const { toggle } = layout;
  const open = useCallback(
    (s: Source) => {
      setNotice('');
      const upload = uploadArtifactId(s);
      if (upload !== '') {
        select(upload);
        if (panelCollapsed) toggle('panel');
        return;
      }
      if (conversationId === null) return;
      if (isBrowserMode()) {
        setNotice(t('open.browser', { path: s.location }));
        return;
      }
      openSourceFile(conversationId, s.location).then(
        () => undefined,
        (e: unknown) => setNotice(t('open.failed', { path: s.location, error: describeError(toApiError(e)) })),
      );
    },
    [conversationId, select, panelCollapsed, toggle, t],
  );
  const clear = useCallback(() => setNotice(''), []);
  return { open, notice, clear };
}

/** The notice of a cited file that could not be opened, with a close button; nothing when there is none. */
export function CitedFileNotice({ notice, onClose }: { notice: string; onClose: () => void }) {
  const { t } = useTranslation('sources');
  if (notice === '') return null;
  return (
    <div className="cite-notice" role="status">
      <span>{notice}</span>
      <button type="button" className="icon-btn" aria-label={t('common:close')} onClick={onClose}>
        ×
      </button>
    </div>
  );
}
