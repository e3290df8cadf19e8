// What `import … from 'react'` gives the unit tests (vite.config.ts, test.alias): the page's
// React API, preact/compat, plus `act` from preact/test-utils, which the tests import from
// 'react' as React 19 exports it there. The page itself never imports act. (JavaScript: the
// TypeScript types of preact/compat use `export =`, which `export *` cannot re-export; the
// tests' types come from @types/react.)
export * from 'preact/compat';
export { default } from 'preact/compat';
export { act } from 'preact/test-utils';
