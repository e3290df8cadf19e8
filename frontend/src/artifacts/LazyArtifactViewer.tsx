// The artifact viewer (Preview, Source, History, the Reader, Edit, Compare, Export) is not
// part of the first screen: its code is a chunk of its own, loaded when an artifact is
// first selected or, sooner, once the window is idle after its first paint
// (preloadArtifactViewer).
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { ArtifactViewerProps } from './ArtifactViewer';

const load = () => import('./ArtifactViewer');
const ArtifactViewer = lazy(() => load().then((m) => ({ default: m.ArtifactViewer })));

/** Starts loading the artifact viewer's chunk (idempotent; errors are left to the viewer). */
export function preloadArtifactViewer(): void {
  load().catch(() => undefined);
}

/** ArtifactViewer loaded on demand; until its chunk is in, the viewer's box says "Loading…". */
export function LazyArtifactViewer(props: ArtifactViewerProps) {
  const { t } = useTranslation('common');
  return (
    <Suspense
      fallback={
        <div className="viewer">
          <p className="hint" role="status">
            {t('loading')}
          </p>
        </div>
      }
    >
      <ArtifactViewer {...props} />
    </Suspense>
  );
}
