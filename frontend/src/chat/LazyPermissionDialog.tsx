// The permission dialog shows only while a tool waits for the user's decision: its code is
// a chunk of its own, loaded right after the first screen (it renders nothing until then,
// and no run can ask before the page has rendered).
import { lazy, Suspense } from 'react';
import type { PermissionDialogProps } from './PermissionDialog';

const load = () => import('./PermissionDialog');
const PermissionDialog = lazy(() => load().then((m) => ({ default: m.PermissionDialog })));

/** PermissionDialog loaded on demand (nothing is shown while its chunk loads). */
export function LazyPermissionDialog(props: PermissionDialogProps) {
  return (
    <Suspense fallback={null}>
      <PermissionDialog {...props} />
    </Suspense>
  );
}
