// Settings → Data: where the data is, a backup now, and how to restore one
// (docs/ARCHITECTURE.md, "Conversation files and backups").

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { revealExport } from '../api/artifacts';
import { toApiError } from '../api/call';
import { isBrowserMode } from '../api/runtime';
import { backupData, type BackupResult } from '../api/settings';
import { formatBytes } from '../shared/format';
import { CopyButton } from '../markdown/CopyButton';
import { Spinner } from '../shared/icons';
import '../files/data.css';

/** The command that restores a backup, as the section shows it. */
export const RESTORE_COMMAND = 'artifactflow restore FILE';

/** Props of DataSettings. */
export interface DataSettingsProps {
  /** The data folder (SettingsView.data_dir); "" while unknown. */
  dataDir: string;
}

/**
 * The Data section of the settings dialog: the data folder; "Back up now…", which writes
 * the whole data to one file while the app keeps running (SettingsService.Backup: the
 * window's save dialog opens in Documents; browser mode writes into Documents) and then says
 * where, with "Show in folder" in the window; and how to restore a backup, which replaces
 * the data and so runs with the app closed (`artifactflow restore FILE`, copyable). It acts
 * at once, outside the dialog's Save.
 */
export function DataSettings({ dataDir }: DataSettingsProps) {
  const { t } = useTranslation('data');
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<BackupResult | null>(null);
  const [error, setError] = useState('');
  const backup = () => {
    setBusy(true);
    setSaved(null);
    setError('');
    backupData().then(
      (r) => {
        setBusy(false);
        if (r.saved_path !== '') setSaved(r); // else the save dialog was cancelled
      },
      (e: unknown) => {
        setBusy(false);
        setError(toApiError(e).message);
      },
    );
  };
  return (
    <fieldset className="data-settings" data-testid="data-settings">
      <legend>{t('settings.legend')}</legend>
      {dataDir !== '' ? (
        <p className="hint">
          {t('settings:dataFolder')} <code>{dataDir}</code>
        </p>
      ) : null}
      <div className="field">
        <span className="label">{t('settings.backup')}</span>
        <div className="data-row">
          <button type="button" className="btn" onClick={backup} disabled={busy}>
            {busy ? <Spinner size={13} /> : null}
            {busy ? t('settings.backingUp') : t('settings.backupNow')}
          </button>
        </div>
        <span className="hint">{t('settings.backupHint')}</span>
        {saved ? (
          <p className="data-saved" role="status">
            <span>{t('settings.backupSaved', { path: saved.saved_path, size: formatBytes(saved.size), conversations: saved.conversations })}</span>
            {isBrowserMode() ? null : (
              <button type="button" className="btn btn-sm btn-ghost" onClick={() => void revealExport(saved.saved_path).catch((e: unknown) => setError(toApiError(e).message))}>
                {t('notice.showInFolder')}
              </button>
            )}
          </p>
        ) : null}
        {error !== '' ? (
          <p className="field-error" role="alert">
            {t('settings.backupFailed', { error })}
          </p>
        ) : null}
      </div>
      <div className="field">
        <span className="label">{t('settings.restore')}</span>
        <span className="hint">{t('settings.restoreHint')}</span>
        <div className="data-row">
          <code className="data-command">{RESTORE_COMMAND}</code>
          <CopyButton text={() => RESTORE_COMMAND} label={t('settings.copyCommand')} />
        </div>
        <span className="hint">{t('settings.restoreNote')}</span>
      </div>
    </fieldset>
  );
}
