// The window's layout controls owned by the chat column: the show/hide buttons of the
// sidebar and the panel in its header, and the splitters between the three columns.
import { useTranslation } from 'react-i18next';
import { BOUNDS, widthRange, type Column, type LayoutControls } from './useLayout';
import { PanelIcon, SidebarIcon } from './layout-icons';
import { MOD_KEY } from '../sidebar/Sidebar';
import { Splitter } from './Splitter';

/** The button that shows or hides a column (Ctrl/Cmd+B the sidebar, Ctrl/Cmd+J the panel). */
export function ColumnToggle({ column, collapsed, onToggle }: { column: Column; collapsed: boolean; onToggle: (c: Column) => void }) {
  const { t } = useTranslation('chat');
  const sidebar = column === 'sidebar';
  const shortcut = `${MOD_KEY}+${sidebar ? 'B' : 'J'}`;
  const label = sidebar ? (collapsed ? t('layout.showSidebar') : t('layout.hideSidebar')) : collapsed ? t('layout.showPanel') : t('layout.hidePanel');
  const title = sidebar
    ? collapsed
      ? t('layout.showSidebarTitle', { shortcut })
      : t('layout.hideSidebarTitle', { shortcut })
    : collapsed
      ? t('layout.showPanelTitle', { shortcut })
      : t('layout.hidePanelTitle', { shortcut });
  return (
    <button
      type="button"
      className={sidebar ? 'icon-btn layout-toggle' : 'icon-btn layout-toggle layout-toggle-end'}
      onClick={() => onToggle(column)}
      aria-label={label}
      aria-pressed={!collapsed}
      aria-keyshortcuts={sidebar ? 'Control+B' : 'Control+J'}
      title={title}
    >
      {sidebar ? <SidebarIcon /> : <PanelIcon />}
    </button>
  );
}

/** The splitters beside the chat column (none beside a collapsed column). */
export function ColumnSplitters({ layout }: { layout: LayoutControls }) {
  const { t } = useTranslation('chat');
  const { widths } = layout;
  return (
    <>
      {layout.layout.sidebarCollapsed ? null : (
        <Splitter
          label={t('layout.resizeSidebar')}
          value={widths.sidebar}
          min={BOUNDS.sidebar.min}
          max={widthRange('sidebar', layout.viewport, widths.panel).max}
          direction={1}
          position={{ left: widths.sidebar }}
          onResize={(w) => layout.setWidth('sidebar', w)}
          onReset={() => layout.resetWidth('sidebar')}
          onCollapse={() => layout.toggle('sidebar')}
        />
      )}
      {layout.layout.panelCollapsed ? null : (
        <Splitter
          label={t('layout.resizePanel')}
          value={widths.panel}
          min={BOUNDS.panel.min}
          max={widthRange('panel', layout.viewport, widths.sidebar).max}
          direction={-1}
          position={{ right: widths.panel }}
          onResize={(w) => layout.setWidth('panel', w)}
          onReset={() => layout.resetWidth('panel')}
          onCollapse={() => layout.toggle('panel')}
        />
      )}
    </>
  );
}
