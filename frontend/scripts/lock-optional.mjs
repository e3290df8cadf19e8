// Completes package-lock.json with the platform-specific optional packages that the npm
// mirror of this workplace does not serve (e.g. @rollup/rollup-darwin-arm64): `npm install`
// leaves them out, after which `npm ci` refuses the lockfile ("Missing: ... from lock file").
// Each missing optional dependency pinned to an exact version gets an entry with the os,
// cpu and libc read from its name, so npm ci skips it on other platforms and fetches it by
// name and version where it fits. Run it after every `npm install`:
//
//   node scripts/lock-optional.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32', 'sunos', 'aix', 'netbsd'];
const CPU = { arm: 'arm', 'arm-eabi': 'arm', arm64: 'arm64', x64: 'x64', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };

/** os, cpu and libc from a name such as "rollup-linux-arm64-musl" or "win32-x64-msvc". */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const i = parts.findIndex((p) => OS.includes(p));
  if (i < 0) return null;
  const os = parts[i];
  const rest = parts.slice(i + 1);
  const cpu = CPU[rest.slice(0, 2).join('-')] ?? CPU[rest[0]];
  if (!cpu) return null;
  const abi = rest.at(-1);
  const libc = os !== 'linux' ? undefined : abi?.startsWith('musl') ? 'musl' : abi?.startsWith('gnu') ? 'glibc' : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [name, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${path}/node_modules/${name}`;
    if (pkgs[key] || pkgs[nested]) continue;
    const plat = platformOf(name);
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range) || !plat) {
      console.warn(`skip ${name}@${range} (needed by ${path || 'root'}): not an exact version or no platform in its name`);
      continue;
    }
    pkgs[key] = {
      version: range,
      cpu: [plat.cpu],
      ...(meta.dev ? { dev: true } : {}),
      ...(plat.libc ? { libc: [plat.libc] } : {}),
      optional: true,
      os: [plat.os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-optional: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
