import { Fragment, useMemo, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { artifactStepView, type ArtifactStepView } from './artifact-step';
import { webSummary } from '../sources/citations';
import { flowItems, type Lane } from '../run/lanes';
import { runWeb, visibleText, type RunState, type Step } from '../run/events';
import { clip, describeStep, formatDuration } from '../shared/format';
import { CheckIcon, ChevronIcon, Spinner, StoppedIcon, XIcon } from '../shared/icons';

/** Props of ActivityFlow. */
export interface ActivityFlowProps {
  run: RunState;
  /**
   * Whether the run is being watched live: its flow is expanded while it runs and folds to
   * its summary when it ends. Flows of past runs start folded.
   */
  live: boolean;
}

function StatusIcon({ step }: { step: Step }) {
  const { t } = useTranslation('tools');
  switch (step.status) {
    case 'running':
      return (
        <span className="step-icon running" aria-label={t('activity.running')}>
          <Spinner size={13} />
        </span>
      );
    case 'done':
      return (
        <span className="step-icon done" aria-label={t('activity.done')}>
          <CheckIcon size={13} strokeWidth={2.5} />
        </span>
      );
    case 'error':
      return (
        <span className="step-icon error" aria-label={t('activity.failed')}>
          <XIcon size={13} strokeWidth={2.5} />
        </span>
      );
    case 'stopped':
      return (
        <span className="step-icon stopped" aria-label={t('activity.stopped')}>
          <StoppedIcon size={13} />
        </span>
      );
  }
}

/** Long step output is cut at 4000 characters. */
const clipDetail = (text: string): string => (text.length > 4000 ? `${text.slice(0, 4000)}…` : text);

/** An expanded artifact tool row: the artifact's title, id, version and what the call wrote or read. */
function ArtifactDetail({ view }: { view: ArtifactStepView }) {
  const facts = [view.title !== '' && view.title !== view.id ? view.id : '', view.version !== null ? `v${String(view.version)}` : '', view.verb].filter(
    (f) => f !== '',
  );
  return (
    <div className="step-artifact">
      <div className="step-artifact-head">
        <strong>{view.title || view.id}</strong>
        {facts.map((f) => (
          <Fragment key={f}>
            {' '}
            <span className="step-meta">
              <span className="sep">·</span>
              {f}
            </span>
          </Fragment>
        ))}
      </div>
      {view.preview !== '' ? <pre className="step-detail-text">{clipDetail(view.preview)}</pre> : null}
    </div>
  );
}

function StepRow({ step, writing }: { step: Step; writing: boolean }) {
  const { t } = useTranslation('tools');
  const [open, setOpen] = useState(false);
  const line = describeStep(step);
  if (writing) line.action = t('activity.writing');
  // Under an agent round: the task it was given, else what it wrote on the way.
  const note =
    step.kind !== 'agent'
      ? ''
      : step.instruction !== ''
        ? clip(step.instruction, 240)
        : step.answered && step.depth === 0
          ? ''
          : clip(visibleText(step.text), 240);
  // A sub-agent's round streams its text under its task while it runs (the end of it).
  const live = step.kind === 'agent' && step.status === 'running' && step.depth > 0 ? visibleText(step.text) : '';
  const stream = live.length > 240 ? `…${live.slice(-240)}` : live;
  const detailText =
    step.kind === 'tool'
      ? step.error || step.result
      : step.kind === 'agent' && !step.answered
        ? visibleText(step.text)
        : step.kind === 'note'
          ? (step.detail ?? '')
          : '';
  const expandable = step.status !== 'running' && detailText.length > 0;
  // An artifact tool's result is the <artifact …> line the model read: show the artifact instead.
  const artifact = step.kind === 'tool' && step.status === 'done' ? artifactStepView(step.tool, step.params, step.result) : null;
  const body = (
    <>
      <StatusIcon step={step} />
      <span className="step-line">
        {line.agent ? <span className="step-agent">{line.agent}</span> : null}
        {line.agent && line.action ? <span className="sep">·</span> : null}
        <span className={step.kind === 'tool' ? 'step-tool' : 'step-action'}>{line.action}</span>
        {line.server !== undefined ? (
          <>
            <span className="sep">·</span>
            <span className="step-server">{line.server}</span>
          </>
        ) : null}
        {line.detail ? (
          <span className={line.quoted ? 'step-detail quoted' : 'step-detail'}>
            {line.quoted ? `“${line.detail}”` : line.detail}
          </span>
        ) : null}
        {line.meta.map((m) => (
          <Fragment key={m}>
            {' '}
            <span className="step-meta">
              <span className="sep">·</span>
              {m}
            </span>
          </Fragment>
        ))}
        {step.kind === 'tool' && step.status === 'error' && step.error ? (
          <>
            {' '}
            <span className="step-err">
              <span className="sep">·</span>
              {clip(step.error, 80)}
            </span>
          </>
        ) : null}
      </span>
    </>
  );
  return (
    <li className={`step kind-${step.kind} status-${step.status}`} data-depth={step.depth} style={{ '--depth': step.depth } as CSSProperties}>
      {expandable ? (
        <button type="button" className="step-head" aria-expanded={open} onClick={() => setOpen(!open)}>
          {body}
          <ChevronIcon size={12} className={open ? 'chev open' : 'chev'} />
        </button>
      ) : (
        <div className="step-head">{body}</div>
      )}
      {note && !open ? <div className="step-note">{note}</div> : null}
      {stream !== '' && stream !== note && !open ? (
        <div className="step-note step-stream" aria-live="off">
          {stream}
        </div>
      ) : null}
      {open && artifact ? <ArtifactDetail view={artifact} /> : null}
      {open && !artifact ? <pre className="step-detail-text">{clipDetail(detailText)}</pre> : null}
    </li>
  );
}

/**
 * The lanes of sub-agent instances started together: one column per instance (they wrap to
 * rows when the column is narrow), each headed by the lead's call_subagent line and
 * streaming its own rounds and tool calls.
 */
function Lanes({ lanes }: { lanes: Lane[] }) {
  const { t } = useTranslation('tools');
  return (
    <li className={`lanes${lanes.length > 1 ? ' parallel' : ''}`} aria-label={lanes.length > 1 ? t('activity.parallel', { count: lanes.length }) : undefined}>
      {lanes.map((l) => (
        <ol key={l.call.key} className="lane" data-instance={l.call.callId}>
          <StepRow step={l.call} writing={false} />
          {l.steps.map((s) => (
            // A lane's steps are a sub-agent's (depth 1): never the lead writing its answer.
            <StepRow key={s.key} step={s} writing={false} />
          ))}
        </ol>
      ))}
    </li>
  );
}

/**
 * The activity flow of one run: one line per agent round and per tool call, nested by agent
 * (sub-agents under the lead), each with a spinner while running and a check, cross or stop
 * mark after. Lines with output expand to show it. The whole flow folds to a one-line
 * summary (agents, tool calls, searches and pages read with how many failed, duration; the
 * current step while running), its web part marked when any failed. Sub-agent instances run
 * at once sit in parallel lanes (run/lanes.ts).
 */
export function ActivityFlow({ run, live }: ActivityFlowProps) {
  const { t } = useTranslation('tools');
  const running = run.status === 'running';
  const [chosen, setOpen] = useState<boolean | null>(null);
  const open = chosen ?? (live && running);
  const tools = run.steps.filter((s) => s.kind === 'tool').length;
  const agents = new Set(run.steps.flatMap((s) => (s.kind === 'agent' ? [s.agent] : []))).size;
  const current = [...run.steps].reverse().find((s) => s.status === 'running');
  const summary = running && current ? describeStep(current) : null;
  const web = runWeb(run);
  const webText = webSummary(web);
  const webFailed = web.searches_failed + web.fetches_failed > 0;
  // Laid out again only when the steps change, not on every streamed chunk of the answer.
  const items = useMemo(() => (open ? flowItems(run.steps) : []), [open, run.steps]);
  return (
    <section className={`activity${open ? ' open' : ''}`} aria-label={t('activity.label')}>
      <button type="button" className="activity-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <ChevronIcon size={14} className={open ? 'chev open' : 'chev'} />
        <span className="activity-title">{running ? t('activity.researching') : t('activity.title')}</span>
        {running ? <Spinner size={12} /> : null}
        <span className="activity-sum">
          {summary && !open ? (
            `${summary.agent} · ${summary.action}${summary.server !== undefined ? ` · ${summary.server}` : ''}${summary.detail ? ` ${summary.quoted ? `“${summary.detail}”` : summary.detail}` : ''}`
          ) : (
            <>
              {`${t('activity.agents', { count: agents })} · ${t('activity.toolCalls', { count: tools })}`}
              {webText !== '' ? (
                <>
                  {' · '}
                  <span className={`activity-web${webFailed ? ' has-failures' : ''}`} title={web.errors.join('\n') || undefined}>
                    {webText}
                  </span>
                </>
              ) : null}
              {run.figures && run.figures.durationMs > 0 ? ` · ${formatDuration(run.figures.durationMs)}` : null}
            </>
          )}
        </span>
      </button>
      {open ? (
        run.steps.length === 0 ? (
          <p className="activity-empty">{running ? t('activity.starting') : t('activity.none')}</p>
        ) : (
          <ol className="steps">
            {items.map((item) =>
              item.kind === 'lanes' ? (
                <Lanes key={item.key} lanes={item.lanes} />
              ) : (
                <StepRow
                  key={item.step.key}
                  step={item.step}
                  writing={item.step.kind === 'agent' && item.step.depth === 0 && item.step.status === 'running' && run.answer !== ''}
                />
              ),
            )}
          </ol>
        )
      ) : null}
    </section>
  );
}
