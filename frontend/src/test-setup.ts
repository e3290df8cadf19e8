// Runs before every test file (vite.config.ts test.setupFiles): the Markdown renderer, a
// chunk the page loads after its first paint (markdown/markdown-lib.ts), is loaded first,
// so components render Markdown as they do once the page is up. markdown-lib.test.tsx
// covers the moment before it has loaded.
import { loadMarkdownLib } from './markdown/markdown-lib';

await loadMarkdownLib();
