import { Fragment, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { foldUnchanged, type DiffModel, type InlineRow, type Segment, type SideCell, type SideRow } from './diff';
import '../i18n/i18n'; // the UI's language, set up before the first render

/** How a diff is laid out: two columns, or one column with removed lines above added ones. */
export type DiffMode = 'side' | 'inline';

/** Props of DiffView. */
export interface DiffViewProps {
  /** diffTexts(older, newer): older is the left / "−" side. */
  model: DiffModel;
  mode: DiffMode;
  /** Column captions for the side-by-side view: [older, newer]. */
  labels: [string, string];
  /** Unchanged lines kept around each change when long unchanged runs fold (default 3). */
  context?: number;
}

function Segments({ segments, kind }: { segments: Segment[]; kind: 'removed' | 'added' | 'same' }) {
  if (segments.length === 0) return <span className="d-empty">{'\u00a0'}</span>;
  return (
    <>
      {segments.map((s, i) =>
        !s.changed ? (
          <Fragment key={i}>{s.text}</Fragment>
        ) : kind === 'removed' ? (
          <del key={i}>{s.text}</del>
        ) : (
          <ins key={i}>{s.text}</ins>
        ),
      )}
    </>
  );
}

/** The screen-reader prefix of a removed or added line ("Removed: "). */
function ChangeMark({ kind }: { kind: 'removed' | 'added' }) {
  const { t } = useTranslation('artifacts');
  return <span className="sr-only">{kind === 'removed' ? t('diff.removed') : t('diff.added')}</span>;
}

function Cell({ cell }: { cell: SideCell | null }) {
  const { t } = useTranslation('artifacts');
  if (!cell) {
    return (
      <>
        <td className="d-ln d-none" aria-hidden="true" />
        <td className="d-tx d-none" />
      </>
    );
  }
  const kind = cell.kind;
  const cls = kind === 'same' ? '' : kind === 'removed' ? ' d-del' : ' d-add';
  return (
    <>
      <td className={`d-ln${cls}`} aria-hidden="true">
        {cell.line}
      </td>
      <td className={`d-tx${cls}${cell.moved ? ' d-moved' : ''}`} title={cell.moved ? t('diff.moved') : undefined}>
        {kind !== 'same' ? <ChangeMark kind={kind} /> : null}
        <Segments segments={cell.segments} kind={kind} />
      </td>
    </>
  );
}

function FoldRow({ count, colSpan, onOpen }: { count: number; colSpan: number; onOpen: () => void }) {
  const { t } = useTranslation('artifacts');
  return (
    <tr className="d-fold">
      <td colSpan={colSpan}>
        <button type="button" className="d-fold-btn" onClick={onOpen}>
          <span aria-hidden="true">⋯</span> {t('diff.showUnchanged', { count })}
        </button>
      </td>
    </tr>
  );
}

/**
 * A line diff of two versions (see diffTexts): side by side or inline, removed lines
 * tinted red and added ones green, with the changed words inside paired lines marked by
 * <del>/<ins>. Long runs of unchanged lines fold behind a "Show N unchanged lines" button.
 */
export function DiffView({ model, mode, labels, context = 3 }: DiffViewProps) {
  const { t } = useTranslation('artifacts');
  const [open, setOpen] = useState<{ model: DiffModel | null; mode: DiffMode; ids: Set<number> }>({ model: null, mode, ids: new Set() });
  // Folds opened for another diff or another mode do not carry over.
  const opened = open.model === model && open.mode === mode ? open.ids : new Set<number>();
  const openFold = (id: number) => setOpen({ model, mode, ids: new Set([...opened, id]) });

  if (model.identical) {
    return (
      <div className="diff-empty" role="status">
        <strong>{t('diff.identical')}</strong> {t('diff.identicalDetail')}
      </div>
    );
  }

  const notes: ReactNode[] = [];
  if (model.eolChanged) {
    notes.push(
      <p key="eol" className="diff-note">
        {model.eol[1] ? t('diff.eolAdded') : t('diff.eolRemoved')}
      </p>,
    );
  } else if (model.added === 0 && model.removed === 0) {
    notes.push(
      <p key="ws" className="diff-note">
        {t('diff.lineEndings')}
      </p>,
    );
  }

  if (mode === 'side') {
    const items = foldUnchanged<SideRow>(model.side, (r) => r.kind === 'same', context, 4, opened);
    return (
      <div className="diff-wrap">
        {notes}
        <table className="diff diff-side">
          <colgroup>
            <col className="c-ln" />
            <col className="c-tx" />
            <col className="c-ln" />
            <col className="c-tx" />
          </colgroup>
          <thead>
            <tr>
              <th colSpan={2} scope="col">
                {labels[0]}
              </th>
              <th colSpan={2} scope="col">
                {labels[1]}
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((it) =>
              it.kind === 'fold' ? (
                <FoldRow key={`f${String(it.id)}`} count={it.rows.length} colSpan={4} onOpen={() => openFold(it.id)} />
              ) : (
                <tr key={it.index} className={`d-row d-${it.row.kind}`}>
                  <Cell cell={it.row.left} />
                  <Cell cell={it.row.right} />
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    );
  }

  const items = foldUnchanged<InlineRow>(model.inline, (r) => r.kind === 'same', context, 4, opened);
  return (
    <div className="diff-wrap">
      <div className="diff-legend" aria-hidden="true">
        <span className="leg leg-del">− {labels[0]}</span>
        <span className="leg leg-add">+ {labels[1]}</span>
      </div>
      {notes}
      <table className="diff diff-inline">
        <colgroup>
          <col className="c-ln" />
          <col className="c-ln" />
          <col className="c-sign" />
          <col className="c-tx" />
        </colgroup>
        <thead className="sr-only">
          <tr>
            <th scope="col">{t('diff.lineOf', { label: labels[0] })}</th>
            <th scope="col">{t('diff.lineOf', { label: labels[1] })}</th>
            <th scope="col">{t('diff.change')}</th>
            <th scope="col">{t('diff.text')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((it) => {
            if (it.kind === 'fold') return <FoldRow key={`f${String(it.id)}`} count={it.rows.length} colSpan={4} onOpen={() => openFold(it.id)} />;
            const r = it.row;
            const cls = r.kind === 'same' ? '' : r.kind === 'removed' ? ' d-del' : ' d-add';
            return (
              <tr key={it.index} className={`d-row d-${r.kind}`}>
                <td className={`d-ln${cls}`} aria-hidden="true">
                  {r.oldLine || ''}
                </td>
                <td className={`d-ln${cls}`} aria-hidden="true">
                  {r.newLine || ''}
                </td>
                <td className={`d-sign${cls}`} aria-hidden="true">
                  {r.kind === 'removed' ? '−' : r.kind === 'added' ? '+' : ''}
                </td>
                <td className={`d-tx${cls}${r.moved ? ' d-moved' : ''}`} title={r.moved ? t('diff.moved') : undefined}>
                  {r.kind !== 'same' ? <ChangeMark kind={r.kind} /> : null}
                  <Segments segments={r.segments} kind={r.kind} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
