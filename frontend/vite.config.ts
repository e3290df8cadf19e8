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
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test-setup.ts'],
    environment: 'node',
    // Stylesheets imported with ?raw keep their text (src/fonts.test.ts reads them); others stay empty.
    css: { include: [/\.css\?raw$/] },
  },
});
