// The artifact viewer's Export button and its menu of formats.

import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ExportFormat } from '../api/artifacts';
import { CaretIcon, DownloadIcon } from './artifact-icons';
import { Spinner } from '../shared/icons';

const EXPORTS: { format: ExportFormat; label: string; hint: string }[] = [
  { format: 'markdown', label: 'Markdown', hint: '.md' },
  { format: 'html', label: 'HTML', hint: '.html' },
  { format: 'docx', label: 'Word', hint: '.docx' },
];

/** Props of ExportMenu. */
export interface ExportMenuProps {
  /** An export is under way (the button shows a spinner and is disabled). */
  busy: boolean;
  /** The button's tooltip. */
  title: string;
  onExport: (format: ExportFormat) => void;
}

/**
 * Export ▾: a menu of Markdown, HTML and Word. The open menu focuses its first item; arrows
 * move, Esc closes it back to the button, Tab or a click outside closes it.
 */
export function ExportMenu({ busy, title, onExport }: ExportMenuProps) {
  const { t } = useTranslation('artifacts');
  const [menu, setMenu] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  const exportBtn = useRef<HTMLButtonElement>(null);

  // The export menu: focus its first item as it opens (a layout effect, so a key pressed
  // right after the click already lands in the menu), close on outside click.
  useLayoutEffect(() => {
    if (!menu) return;
    menuRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!menuRef.current?.contains(target) && !exportBtn.current?.contains(target)) setMenu(false);
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [menu]);

  return (
    <span className="menu-anchor">
      <button
        ref={exportBtn}
        type="button"
        className="btn btn-sm btn-ghost"
        aria-haspopup="menu"
        aria-expanded={menu}
        disabled={busy}
        onClick={() => setMenu((m) => !m)}
        title={title}
      >
        {busy ? <Spinner size={13} /> : <DownloadIcon />} <span className="btn-label">{t('common:export')}</span> <CaretIcon />
      </button>
      {menu ? (
        <div
          className="menu menu-export"
          role="menu"
          ref={menuRef}
          aria-label={t('viewer.exportAs')}
          onKeyDown={(e) => {
            const items = Array.from(menuRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? []);
            const i = items.indexOf(document.activeElement as HTMLButtonElement);
            if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              setMenu(false);
              exportBtn.current?.focus();
            } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
            } else if (e.key === 'Tab') {
              setMenu(false);
            }
          }}
        >
          {EXPORTS.map((x) => (
            <button
              key={x.format}
              type="button"
              role="menuitem"
              onClick={() => {
                setMenu(false);
                onExport(x.format);
              }}
            >
              {x.label} <span className="muted">{x.hint}</span>
            </button>
          ))}
        </div>
      ) : null}
    </span>
  );
}
