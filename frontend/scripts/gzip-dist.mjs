// Writes every file of dist (the vite build), gzip-compressed, to distgz: dist/x.js becomes
// distgz/x.js.gz. The Go binaries embed distgz instead of dist (0.4 MB instead of 2.2 MB)
// and read it through app/gzfs as the plain files; dist stays as it is for the
// tests that serve it from disk. `npm run build` runs it after vite build.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const out = join(root, 'distgz');

mkdirSync(out, { recursive: true });
for (const e of readdirSync(out)) {
  if (e !== '.gitkeep') rmSync(join(out, e), { recursive: true, force: true });
}
let raw = 0;
let packed = 0;
for (const e of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!e.isFile() || e.name === '.gitkeep') continue;
  const src = join(e.parentPath, e.name);
  const data = readFileSync(src);
  const gz = gzipSync(data, { level: 9 });
  const dst = join(out, relative(dist, src) + '.gz');
  mkdirSync(dirname(dst), { recursive: true });
  writeFileSync(dst, gz);
  raw += data.length;
  packed += gz.length;
}
console.log(`gzip-dist: ${raw} bytes in dist, ${packed} in distgz`);
