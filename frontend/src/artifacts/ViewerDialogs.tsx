// The artifact viewer's dialogs, Edit and Compare, which load (with the diff code they use)
// on first use, outside the main bundle.

import { lazy, Suspense } from 'react';
import type { ArtifactVersion, ArtifactView } from '../api/artifacts';
import type { CurrentState, VersionRef } from './versions';
import type { ContentState } from './artifactData';

const CompareDialog = lazy(() => import('./CompareDialog').then((m) => ({ default: m.CompareDialog })));
const EditorDialog = lazy(() => import('./EditorDialog').then((m) => ({ default: m.EditorDialog })));

/** Props of ViewerDialogs. */
export interface ViewerDialogsProps {
  conversationId: string;
  artifactId: string;
  title: string;
  /** The current version and whether a run holds unsaved changes. */
  state: CurrentState;
  /** The current content. */
  current: ContentState;
  versions: ArtifactVersion[];
  /** The editor is open. */
  editing: boolean;
  onCloseEditor: () => void;
  onSaved: (saved: ArtifactView) => void;
  /** The pair Compare opens with; null while it is closed. */
  compare: [VersionRef, VersionRef] | null;
  onCloseCompare: () => void;
}

/** The editor (on top of the current version) and Compare, when open. */
export function ViewerDialogs(p: ViewerDialogsProps) {
  return (
    <Suspense fallback={null}>
      {p.editing ? (
        <EditorDialog
          conversationId={p.conversationId}
          artifactId={p.artifactId}
          title={p.title}
          baseVersion={p.state.version}
          initialContent={p.current.content}
          onClose={p.onCloseEditor}
          onSaved={p.onSaved}
        />
      ) : null}
      {p.compare ? (
        <CompareDialog
          conversationId={p.conversationId}
          artifactId={p.artifactId}
          title={p.title}
          versions={p.versions}
          current={p.state}
          currentContent={p.current}
          initial={p.compare}
          onClose={p.onCloseCompare}
        />
      ) : null}
    </Suspense>
  );
}
