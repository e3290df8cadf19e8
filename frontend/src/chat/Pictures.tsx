import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getImage, type ImageData } from '../api/artifacts';
import { toApiError } from '../api/call';
import type { ImageRef } from './images';
import type { ComposerImage } from './useComposerImages';
import { AlertIcon, Spinner, XIcon } from '../shared/icons';
import './pictures.css';

/** Loaded pictures by conversation and artifact: an upload's original never changes. */
const cache = new Map<string, Promise<ImageData>>();

/** Forgets the cached pictures (tests). */
export function clearPictureCache(): void {
  cache.clear();
}

/** The picture upload `artifactId` of a conversation holds, loaded once (getImage); null while loading. */
export function usePicture(conversationId: string, artifactId: string): { image: ImageData | null; error: string } {
  const [state, setState] = useState<{ key: string; image: ImageData | null; error: string }>({ key: '', image: null, error: '' });
  const key = `${conversationId}/${artifactId}`;
  useEffect(() => {
    if (conversationId === '' || artifactId === '') return;
    let p = cache.get(key);
    if (!p) {
      p = getImage(conversationId, artifactId);
      cache.set(key, p);
      p.catch(() => cache.delete(key)); // a failure is tried again next time
    }
    let live = true;
    p.then(
      (image) => live && setState({ key, image, error: '' }),
      (e: unknown) => live && setState({ key, image: null, error: toApiError(e).message }),
    );
    return () => {
      live = false;
    };
  }, [conversationId, artifactId, key]);
  return state.key === key ? { image: state.image, error: state.error } : { image: null, error: '' };
}

/** Props of ComposerPictures. */
export interface ComposerPicturesProps {
  items: readonly ComposerImage[];
  onRemove: (key: string) => void;
}

/**
 * The pictures pasted or dropped into the composer, as thumbnail chips above the box: each
 * with its name, a spinner while it uploads, the reason when it failed, and a remove button
 * (reached with Tab; Delete or Backspace on a focused chip removes it too).
 */
export function ComposerPictures({ items, onRemove }: ComposerPicturesProps) {
  const { t } = useTranslation('chat');
  if (items.length === 0) return null;
  return (
    <ul className="composer-pictures" aria-label={t('images.listLabel')}>
      {items.map((it) => (
        <li
          key={it.key}
          className={`picture-chip status-${it.status}`}
          title={it.error || it.name}
          data-testid="composer-picture"
          onKeyDown={(e) => {
            if (e.key === 'Delete' || e.key === 'Backspace') {
              e.preventDefault();
              onRemove(it.key);
            }
          }}
        >
          {it.url ? <img src={it.url} alt={it.name} /> : <span className="picture-placeholder" aria-hidden="true" />}
          <span className="picture-name">{it.name}</span>
          {it.status === 'uploading' ? <Spinner size={12} /> : null}
          {it.status === 'failed' ? (
            <span className="picture-error" role="alert">
              <AlertIcon size={12} /> {it.error}
            </span>
          ) : null}
          <button type="button" className="icon-btn picture-remove" onClick={() => onRemove(it.key)} aria-label={t('images.remove', { name: it.name })}>
            <XIcon size={12} />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** One picture of a sent question: its thumbnail, a button that opens its upload. */
function QuestionPicture({ conversationId, refItem, onOpen }: { conversationId: string; refItem: ImageRef; onOpen: (artifactId: string) => void }) {
  const { t } = useTranslation('chat');
  const { image, error } = usePicture(conversationId, refItem.artifact_id);
  return (
    <button type="button" className="question-picture" onClick={() => onOpen(refItem.artifact_id)} title={t('images.open', { name: refItem.name })} data-testid="question-picture">
      {image ? (
        <img src={image.url} alt={refItem.name} width={refItem.width || undefined} height={refItem.height || undefined} />
      ) : error ? (
        <span className="picture-error">
          <AlertIcon size={12} /> {refItem.name}: {error}
        </span>
      ) : (
        <span className="picture-placeholder" aria-label={refItem.name} />
      )}
    </button>
  );
}

/** The pictures of a sent question, above its text; a click opens the upload in the panel. */
export function QuestionPictures({ conversationId, images, onOpen }: { conversationId: string; images: readonly ImageRef[]; onOpen: (artifactId: string) => void }) {
  if (images.length === 0 || conversationId === '') return null;
  return (
    <div className="question-pictures">
      {images.map((im) => (
        <QuestionPicture key={im.artifact_id} conversationId={conversationId} refItem={im} onOpen={onOpen} />
      ))}
    </div>
  );
}

/** An image artifact's preview: the picture itself, then its description line. */
export function PicturePreview({ conversationId, artifactId, description }: { conversationId: string; artifactId: string; description: string }) {
  const { image, error } = usePicture(conversationId, artifactId);
  return (
    <figure className="picture-preview">
      {image ? <img src={image.url} alt={image.name} /> : error ? <p className="binary-note">{error}</p> : <Spinner size={14} />}
      <figcaption className="muted small">{description}</figcaption>
    </figure>
  );
}
