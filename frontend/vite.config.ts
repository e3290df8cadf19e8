import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/** Keeps dist/.gitkeep (emptied by every build) so `go build` can embed frontend/dist before a build. */
function keepDistPlaceholder(): Plugin {
  return {
    name: 'keep-dist-gitkeep',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '.gitkeep', source: '' });
    },
  };
}

// https://vite.dev/config/ — `test` configures vitest (npm test).
export default defineConfig({
  plugins: [react(), keepDistPlaceholder()],
  // Every JSON module (the UI's catalogues, ~130 KB for both languages, all in the first
  // screen's bundle) becomes JSON.parse("…"): a string literal is parsed much faster than the
  // same data as an object literal, which the page otherwise parses before it can start.
  json: { namedExports: false, stringify: true },
  // The UI is written against React's API and runs on preact/compat, the same API in a
  // runtime a sixth of react-dom's size: the first screen's bundle is ~210 KB smaller, which
  // WebKit takes ~30 ms less to receive and parse at start-up (docs/ARCHITECTURE.md,
  // "Start-up"). Every import of react, react-dom and their subpaths resolves to Preact, in
  // the build and in the unit tests; react and react-dom stay installed only as what the
  // libraries written for React (react-i18next, @tanstack/react-virtual, Testing Library)
  // name as peers, and @types/react types the code.
  resolve: {
    alias: [
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    // The tests import act from 'react', as React 19 exports it: there 'react' is preact/compat
    // with preact/test-utils' act beside it (src/test/react-with-act.js).
    alias: [{ find: /^react$/, replacement: new URL('./src/test/react-with-act.js', import.meta.url).pathname }],
    // Libraries that import react are bundled into the tests, so the aliases above reach them
    // too (left external, they would load React itself next to Preact).
    server: { deps: { inline: [/react-i18next/, /@tanstack\/react-virtual/, /@testing-library/] } },
    environment: 'node',
    // Stylesheets imported with ?raw keep their text (src/fonts.test.ts reads them); others stay empty.
    css: { include: [/\.css\?raw$/] },
  },
});
