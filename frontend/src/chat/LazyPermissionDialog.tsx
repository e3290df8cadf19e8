// The permission dialog shows only while a tool waits for the user's decision: its code is
// a chunk of its own, asked for once the first screen has painted (it renders nothing until
// then, and no run can ask before the page has rendered), so loading it never delays that
// paint.
import { lazy, Suspense } from 'react';
import { useAfterFirstPaint } from '../shared/first-paint';
import type { PermissionDialogProps } from './PermissionDialog';

const load = () => import('./PermissionDialog');
const PermissionDialog = lazy(() => load().then((m) => ({ default: m.PermissionDialog })));

/** PermissionDialog loaded after the first paint (nothing is shown while its chunk loads). */
export function LazyPermissionDialog(props: PermissionDialogProps) {
  if (!useAfterFirstPaint()) return null;
  return (
    <Suspense fallback={null}>
      <PermissionDialog {...props} />
    </Suspense>
  );
}
