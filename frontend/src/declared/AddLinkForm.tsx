// Links & files' "Add link": a title and a web address the user declares as a link of the
// conversation. The backend checks them (the declared store's own validation, the same the
// local API applies); this form only shows what it says, translated, under each field.

import { useEffect, useRef, useState, type SyntheticEvent, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { addLink, type DeclaredArtifact } from '../api/artifacts';
import { toApiError } from '../api/call';
import { i18n } from '../i18n/i18n';

/** What the form says is wrong with each field ("" for nothing). */
export interface LinkErrors {
  title: string;
  url: string;
}

// The declared store's reasons (declared.FieldError messages) and what the user reads for
// each; a reason not listed shows as artifacts:declared.err.other with the reason itself.
// i18n-keys: artifacts:declared.err.titleRequired artifacts:declared.err.titleTooLong artifacts:declared.err.titleText
// i18n-keys: artifacts:declared.err.urlRequired artifacts:declared.err.urlScheme artifacts:declared.err.urlInvalid
// i18n-keys: artifacts:declared.err.urlTooLong artifacts:declared.err.urlControl artifacts:declared.err.other
const REASONS: readonly [field: 'title' | 'url', match: RegExp, key: string][] = [
  ['title', /is required/, 'titleRequired'],
  ['title', /at most \d+ characters/, 'titleTooLong'],
  ['title', /./, 'titleText'],
  ['url', /one of workspacePath, managedId or url is required/, 'urlRequired'],
  ['url', /must use http or https/, 'urlScheme'],
  ['url', /absolute http or https URL|not a valid URL|invalid port/, 'urlInvalid'],
  ['url', /at most \d+ bytes/, 'urlTooLong'],
  ['url', /control characters/, 'urlControl'],
];

/**
 * Translates the backend's validation of a link (ApiError.fields: "title" or "url" → the
 * declared store's English reason) into the UI's language, per field. A field the store
 * did not name is ""; a reason not known here is shown through
 * artifacts:declared.err.other with the reason.
 */
export function linkErrors(fields: Readonly<Record<string, string>>): LinkErrors {
  const out: LinkErrors = { title: '', url: '' };
  for (const field of ['title', 'url'] as const) {
    const reason = fields[field];
    if (reason === undefined || reason === '') continue;
    const hit = REASONS.find(([f, re]) => f === field && re.test(reason));
    out[field] = hit ? i18n.t(`artifacts:declared.err.${hit[2]}`) : i18n.t('artifacts:declared.err.other', { reason });
  }
  return out;
}

/** Props of AddLinkForm. */
export interface AddLinkFormProps {
  conversationId: string;
  /** The link was declared: the artifact as stored (null when it was already there). */
  onAdded: (a: DeclaredArtifact | null) => void;
  /** Escape or Cancel: the form closes, nothing is sent. */
  onCancel: () => void;
}

/**
 * The Add link form: Title and Address, Add and Cancel. Enter in either field adds, Escape
 * cancels (and goes no further, so the panel or a dialog around it stays open); the title
 * field has the focus when it opens. Errors the backend reports stay under their field,
 * the field marked aria-invalid and the focus moved to it; an error of another kind shows
 * under the form. Nothing typed is lost on an error.
 */
export function AddLinkForm({ conversationId, onAdded, onCancel }: AddLinkFormProps) {
  const { t } = useTranslation('artifacts');
  const [title, setTitle] = useState('');
  const [url, setUrl] = useState('');
  const [errors, setErrors] = useState<LinkErrors>({ title: '', url: '' });
  const [other, setOther] = useState('');
  const [busy, setBusy] = useState(false);
  const titleRef = useRef<HTMLInputElement>(null);
  const urlRef = useRef<HTMLInputElement>(null);

  useEffect(() => titleRef.current?.focus(), []);

  const submit = (e?: SyntheticEvent) => {
    e?.preventDefault();
    if (busy) return;
    setBusy(true);
    setOther('');
    addLink(conversationId, title, url).then(
      (a) => {
        setBusy(false);
        onAdded(a);
      },
      (err: unknown) => {
        setBusy(false);
        const ae = toApiError(err);
        const errs = ae.code === 'validation' ? linkErrors(ae.fields) : { title: '', url: '' };
        setErrors(errs);
        if (errs.title === '' && errs.url === '') setOther(t('declared.failed', { what: t('declared.addLink'), error: ae.message }));
        if (errs.title !== '') titleRef.current?.focus();
        else if (errs.url !== '') urlRef.current?.focus();
      },
    );
  };

  const onKey = (e: ReactKeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    }
  };

  return (
    <form className="declared-add" onSubmit={submit} onKeyDown={onKey} aria-label={t('declared.addLink')} noValidate>
      <label className="declared-add-field">
        <span>{t('declared.addLinkTitle')}</span>
        <input
          ref={titleRef}
          className="input"
          value={title}
          maxLength={400}
          aria-invalid={errors.title !== '' ? true : undefined}
          aria-describedby={errors.title !== '' ? 'declared-add-title-error' : undefined}
          onChange={(e) => {
            setTitle(e.target.value);
            setErrors((x) => ({ ...x, title: '' }));
          }}
        />
      </label>
      {errors.title !== '' ? (
        <p className="field-error" id="declared-add-title-error">
          {errors.title}
        </p>
      ) : null}
      <label className="declared-add-field">
        <span>{t('declared.addLinkUrl')}</span>
        <input
          ref={urlRef}
          className="input"
          type="url"
          inputMode="url"
          value={url}
          placeholder="https://"
          aria-invalid={errors.url !== '' ? true : undefined}
          aria-describedby={errors.url !== '' ? 'declared-add-url-error' : undefined}
          onChange={(e) => {
            setUrl(e.target.value);
            setErrors((x) => ({ ...x, url: '' }));
          }}
        />
      </label>
      {errors.url !== '' ? (
        <p className="field-error" id="declared-add-url-error">
          {errors.url}
        </p>
      ) : null}
      {other !== '' ? (
        <p className="field-error" role="alert">
          {other}
        </p>
      ) : null}
      <div className="declared-add-actions">
        <span className="hint">{t('declared.addLinkHint')}</span>
        <button type="button" className="btn btn-sm btn-ghost" onClick={onCancel}>
          {t('declared.addLinkCancel')}
        </button>
        <button type="submit" className="btn btn-sm btn-primary" disabled={busy}>
          {busy ? t('declared.adding') : t('declared.addLinkSubmit')}
        </button>
      </div>
    </form>
  );
}
