// The Settings dialog is not part of the first screen: its code (every section, the MCP and
// agent forms) is a chunk of its own, loaded when the dialog first opens or, sooner, once
// the window is idle after its first paint (preloadSettingsDialog).
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from '../shared/Modal';
import type { SettingsDialogProps } from './SettingsDialog';

const load = () => import('./SettingsDialog');
const SettingsDialog = lazy(() => load().then((m) => ({ default: m.SettingsDialog })));

/** Starts loading the Settings dialog's chunk (idempotent; errors are left to the dialog). */
export function preloadSettingsDialog(): void {
  load().catch(() => undefined);
}

/**
 * SettingsDialog loaded on demand: until its chunk is in, the same dialog box (title, close
 * button, Esc) says "Loading…", so opening it by click or shortcut always shows something
 * at once and the box does not move when the form arrives.
 */
export function LazySettingsDialog(props: SettingsDialogProps) {
  const { t } = useTranslation('settings');
  return (
    <Suspense
      fallback={
        <Modal title={t('title')} onClose={props.onClose} className="modal-settings">
          <p className="hint" role="status">
            {t('common:loading')}
          </p>
        </Modal>
      }
    >
      <SettingsDialog {...props} />
    </Suspense>
  );
}
