// The lower part of the artifact panel: its tabs (Artifacts | Sources) with "Add files",
// the artifact list, and what deleting a document takes with it.

import { useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isUpload, TASK_PLAN_ID, type ArtifactRow } from './rows';
import { formatBytes } from '../shared/format';
import { UploadIcon } from './artifact-icons';
import { LinkIcon } from '../declared/declared-icons';
import { DocIcon } from '../shared/icons';
import { UnsavedDot } from './PlanSection';

/** The tabs of the panel's lower part. */
export type PanelTab = 'artifacts' | 'sources';
const PANEL_TABS: readonly PanelTab[] = ['artifacts', 'sources'];

/** Props of PanelTabs. */
export interface PanelTabsProps {
  tab: PanelTab;
  onTab: (tab: PanelTab) => void;
  artifactCount: number;
  sourceCount: number;
  /** No conversation is open (files added start a new one). */
  newConversation: boolean;
  onAddFiles: (files: File[]) => void;
}

/** The Artifacts and Sources tabs (arrow keys, Home and End move between them) and the "Add files" button. */
export function PanelTabs({ tab, onTab, artifactCount, sourceCount, newConversation, onAddFiles }: PanelTabsProps) {
  const { t } = useTranslation('artifacts');
  const fileInput = useRef<HTMLInputElement>(null);
  const tabRefs = useRef<Partial<Record<PanelTab, HTMLButtonElement | null>>>({});
  const onTabKey = (e: KeyboardEvent) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    const to = e.key === 'Home' ? PANEL_TABS[0] : e.key === 'End' ? PANEL_TABS.at(-1) : step !== 0 ? PANEL_TABS[(PANEL_TABS.indexOf(tab) + step + PANEL_TABS.length) % PANEL_TABS.length] : undefined;
    if (to === undefined) return;
    e.preventDefault();
    onTab(to);
    tabRefs.current[to]?.focus();
  };
  return (
    <header className="panel-head">
      <div className="panel-tabs" role="tablist" aria-label={t('panel.tabs')} onKeyDown={onTabKey}>
        <button
          ref={(el) => {
            tabRefs.current.artifacts = el;
          }}
          type="button"
          role="tab"
          id="panel-tab-artifacts"
          className="panel-tab"
          aria-selected={tab === 'artifacts'}
          tabIndex={tab === 'artifacts' ? 0 : -1}
          onClick={() => onTab('artifacts')}
        >
          <DocIcon size={15} />
          <span>{t('panel.artifacts')}</span>
          {artifactCount > 0 ? <span className="count">{artifactCount}</span> : null}
        </button>
        <button
          ref={(el) => {
            tabRefs.current.sources = el;
          }}
          type="button"
          role="tab"
          id="panel-tab-sources"
          className="panel-tab"
          aria-selected={tab === 'sources'}
          aria-controls={tab === 'sources' ? 'panel-sources' : undefined}
          tabIndex={tab === 'sources' ? 0 : -1}
          onClick={() => onTab('sources')}
        >
          <LinkIcon size={15} />
          <span>{t('panel.sources')}</span>
          {sourceCount > 0 ? <span className="count">{sourceCount}</span> : null}
        </button>
      </div>
      <button
        type="button"
        className="btn btn-sm btn-ghost add-files"
        onClick={() => fileInput.current?.click()}
        title={newConversation ? t('panel.addFilesNew') : t('panel.addFilesThis')}
      >
        <UploadIcon size={14} /> {t('panel.addFiles')}
      </button>
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        aria-label={t('panel.filesToAdd')}
        data-testid="add-files-input"
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = '';
          if (files.length > 0) onAddFiles(files);
        }}
      />
    </header>
  );
}

/** The artifacts (task plan aside) with title, unsaved dot, id, version, size and source badge; one is selected. */
export function ArtifactList({ rows, selectedId, onSelect }: { rows: ArtifactRow[]; selectedId: string | undefined; onSelect: (id: string) => void }) {
  const { t } = useTranslation('artifacts');
  if (rows.length === 0) return <p className="placeholder">{t('panel.empty')}</p>;
  return (
    <ul className="artifact-list" role="listbox" aria-label={t('panel.artifacts')}>
      {rows.map((r) => (
        <li key={r.id} role="presentation">
          <button
            type="button"
            role="option"
            aria-selected={r.id === selectedId}
            className={`artifact-row${r.id === selectedId ? ' selected' : ''}`}
            onClick={() => onSelect(r.id)}
          >
            <span className="artifact-title">
              <span className="name">{r.title || r.id}</span>
              {r.unsaved ? <UnsavedDot /> : null}
            </span>
            <span className="artifact-meta">
              <code>{r.id}</code>
              <span>v{r.version}</span>
              <span>{formatBytes(r.size)}</span>
              <span className={`badge badge-${isUpload(r) ? 'upload' : 'agent'}`}>{isUpload(r) ? t('panel.badgeUpload') : t('panel.badgeAgent')}</span>
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** What deleting a document takes with it, for the confirmation. */
export function DeleteMessage({ row }: { row: ArtifactRow }) {
  const { t } = useTranslation('artifacts');
  return (
    <>
      <p>
        <strong>{row.title || row.id}</strong>
        {t('panel.deleteMessage')}
      </p>
      {row.id === TASK_PLAN_ID ? (
        <p className="muted">{t('panel.deletePlanNote')}</p>
      ) : isUpload(row) ? (
        <p className="muted">{t('panel.deleteUploadNote')}</p>
      ) : null}
    </>
  );
}
