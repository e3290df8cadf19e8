// Points every import of the old API barrels (src/api.ts, src/api-call.ts,
// src/api-conversation.ts, src/api-declared.ts, src/api-export.ts, src/api-settings.ts,
// src/api-sources.ts, src/api-workspace.ts: files that only `export * from './api/…'`) at
// the module under src/api/ that defines each name, then deletes the barrels
// (docs/ARCHITECTURE.md, "Frontend API"). It parses with the `typescript` package already in
// node_modules; nothing else is needed.
//
// How to run it (from frontend/, once nobody else is editing files under src/):
//
//   node scripts/rewrite-api-imports.mjs --dry-run   # list what would change, write nothing
//   node scripts/rewrite-api-imports.mjs             # rewrite src/ and e2e/, delete the barrels
//   npx tsc --noEmit && npx eslint . && npx vitest run
//   # then commit the rewritten files and the deleted barrels (git add -A -- src e2e)
//
// Arguments: [--dry-run] [SRC_DIR [E2E_DIR]]; they default to this script's ../src and
// ../e2e. To try it on a throwaway copy: `cp -r src /tmp/src-copy && node
// scripts/rewrite-api-imports.mjs /tmp/src-copy /nonexistent`.
//
// What it rewrites, in every .ts, .tsx, .js and .mjs file under SRC_DIR and E2E_DIR:
//   import { a, type B, c as d } from '../api';   import type { X } from './api-sources';
//   export { a } from './api';                     export type { X } from './api-sources';
// Names from several barrels, and from imports of the src/api/ modules already there, are
// merged into one declaration per module, at the place of the first; a specifier keeps
// its `type` marking, and a declaration whose names are all types becomes `import type`.
// What it cannot rewrite (a namespace or default import of a barrel, `export * from` a
// barrel, a barrel's path in import(), vi.mock() or a string elsewhere, a name that no
// src/api/ module exports, a barrel with more than re-exports in it) is reported with its
// file and line, and then nothing at all is written or deleted: fix those by hand and run
// it again. Exit status: 0 done (or nothing to do), 1 problems reported.

import { existsSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const [srcArg, e2eArg] = args.filter((a) => a !== '--dry-run');
const SRC = resolve(srcArg ?? join(here, '..', 'src'));
const E2E = resolve(e2eArg ?? join(here, '..', 'e2e'));
const API_DIR = join(SRC, 'api');

const problems = [];
const problem = (file, node, sf, what) => {
  const line = node && sf ? sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 : 0;
  problems.push(`${relative(process.cwd(), file)}${line ? `:${line}` : ''}: ${what}`);
};

/** Every source file under dir (node_modules and dist left out). */
function walk(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function parse(file) {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return { text, sf: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind) };
}

const hasExport = (node) => (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) !== 0;

// 1. The modules under src/api/ and the names each one defines.
if (!existsSync(API_DIR)) {
  console.error(`rewrite-api-imports: ${API_DIR} does not exist`);
  process.exit(1);
}
const definedIn = new Map(); // name -> absolute module path without extension
for (const name of readdirSync(API_DIR)) {
  if (!/\.tsx?$/.test(name) || /\.test\.tsx?$/.test(name) || name.endsWith('.d.ts')) continue;
  const file = join(API_DIR, name);
  const mod = file.replace(/\.tsx?$/, '');
  const { sf } = parse(file);
  const names = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause)) {
        problem(file, st, sf, 'src/api/ modules must define their exports, not re-export them');
        continue;
      }
      for (const el of st.exportClause.elements) names.push(el.name.text);
    } else if (ts.isVariableStatement(st) && hasExport(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) &&
      hasExport(st) &&
      st.name
    ) {
      names.push(st.name.text);
    }
  }
  for (const n of names) {
    const other = definedIn.get(n);
    if (other && other !== mod) problem(file, null, null, `"${n}" is exported by ${basename(other)} too`);
    definedIn.set(n, mod);
  }
}

// 2. The barrels: src/api.ts and src/api-*.ts (tests aside), which must only re-export src/api/.
const barrels = new Set(); // absolute paths without extension
for (const name of readdirSync(SRC)) {
  if (!/^api(-[a-z0-9-]+)?\.ts$/.test(name) || name.endsWith('.test.ts')) continue;
  const file = join(SRC, name);
  const { sf } = parse(file);
  for (const st of sf.statements) {
    const ok = ts.isExportDeclaration(st) && !st.exportClause && st.moduleSpecifier && /^\.\/api\/[\w-]+$/.test(st.moduleSpecifier.text);
    if (!ok) problem(file, st, sf, 'a barrel holds more than `export * from \'./api/…\'`: move that code into src/api/ first');
  }
  barrels.add(file.replace(/\.ts$/, ''));
}

/** The import path from `file` to module `mod` (absolute, no extension). */
function specifierFor(file, mod) {
  let p = relative(dirname(file), mod).split(sep).join('/');
  if (!p.startsWith('.')) p = `./${p}`;
  return p;
}

/** The absolute module path (no extension) a relative specifier names from `file`, or null. */
function target(file, spec) {
  if (!spec.startsWith('.')) return null;
  return resolve(dirname(file), spec).replace(/\.(ts|tsx|js)$/, '');
}

const isApiModule = (mod) => mod !== null && dirname(mod) === API_DIR && [...definedIn.values()].includes(mod);

/** One rewritten declaration's text: `import|export [type] { … } from '…';`. */
function render(keyword, specs, from, indent) {
  const allTypes = specs.every((s) => s.isType);
  // Values first, then types, each in alphabetical order (the order the sources keep).
  const sorted = [...specs].sort((a, b) => Number(a.isType) - Number(b.isType) || a.text.localeCompare(b.text, 'en', { sensitivity: 'base' }));
  const items = sorted.map((s) => `${s.isType && !allTypes ? 'type ' : ''}${s.text}`);
  const head = `${keyword}${allTypes ? ' type' : ''} {`;
  const tail = `} from '${from}';`;
  const one = `${head} ${items.join(', ')} ${tail}`;
  if (indent.length + one.length <= 140) return one;
  return `${head}\n${items.map((i) => `${indent}  ${i},`).join('\n')}\n${indent}${tail}`;
}

// 3. Rewrite every importer.
const edits = []; // { file, text }
for (const file of [...walk(SRC), ...walk(E2E)]) {
  const noExt = file.replace(/\.(ts|tsx|js|mjs)$/, '');
  if (barrels.has(noExt)) continue;
  const { text, sf } = parse(file);
  // Per keyword (import / export): the declarations to replace, and the specifiers by module.
  const groups = { import: { decls: [], byMod: new Map() }, export: { decls: [], byMod: new Map() } };
  let touchesBarrel = false;
  for (const st of sf.statements) {
    const isImport = ts.isImportDeclaration(st);
    const isExport = ts.isExportDeclaration(st);
    if (!(isImport || isExport) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const mod = target(file, st.moduleSpecifier.text);
    const fromBarrel = mod !== null && barrels.has(mod);
    if (!fromBarrel && !isApiModule(mod)) continue;
    const g = groups[isImport ? 'import' : 'export'];
    let specs;
    if (isImport) {
      const clause = st.importClause;
      if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) {
        if (fromBarrel) problem(file, st, sf, 'a side-effect, default or namespace import of a barrel: rewrite it by hand');
        continue;
      }
      specs = clause.namedBindings.elements.map((el) => ({ el, isType: clause.isTypeOnly || el.isTypeOnly }));
    } else {
      if (!st.exportClause || !ts.isNamedExports(st.exportClause)) {
        if (fromBarrel) problem(file, st, sf, '`export * from` a barrel: list the names by hand');
        continue;
      }
      specs = st.exportClause.elements.map((el) => ({ el, isType: st.isTypeOnly || el.isTypeOnly }));
    }
    if (fromBarrel) touchesBarrel = true;
    g.decls.push(st);
    for (const { el, isType } of specs) {
      const name = (el.propertyName ?? el.name).text;
      const home = fromBarrel ? definedIn.get(name) : mod;
      if (!home) {
        problem(file, el, sf, `no module under src/api/ exports "${name}"`);
        continue;
      }
      const local = el.propertyName ? `${el.propertyName.text} as ${el.name.text}` : el.name.text;
      const list = g.byMod.get(home) ?? [];
      if (!list.some((s) => s.text === local)) list.push({ text: local, isType });
      else if (!isType) list.find((s) => s.text === local).isType = false;
      g.byMod.set(home, list);
    }
  }
  // A barrel's path anywhere else (import(), vi.mock(), a string): by hand.
  const visit = (node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent)) {
      const mod = target(file, node.text);
      if (mod !== null && barrels.has(mod)) problem(file, node, sf, `"${node.text}" names a barrel outside an import: rewrite it by hand`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (!touchesBarrel) continue;
  // Replace the first declaration of each keyword with the merged ones, drop the others.
  const replacements = [];
  for (const [keyword, g] of Object.entries(groups)) {
    if (g.decls.length === 0) continue;
    const first = g.decls[0];
    const lineStart = text.lastIndexOf('\n', first.getStart(sf) - 1) + 1;
    const indent = text.slice(lineStart, first.getStart(sf)).match(/^\s*/)[0];
    const mods = [...g.byMod.keys()].sort((a, b) => specifierFor(file, a).localeCompare(specifierFor(file, b)));
    const merged = mods.map((m) => render(keyword, g.byMod.get(m), specifierFor(file, m), indent)).join(`\n${indent}`);
    g.decls.forEach((d, i) => {
      let end = d.getEnd();
      // A dropped declaration takes its line break with it.
      if (i > 0 && text[end] === '\n') end += 1;
      replacements.push({ start: i === 0 ? d.getStart(sf) : text.lastIndexOf('\n', d.getStart(sf) - 1) + 1, end, text: i === 0 ? merged : '' });
    });
  }
  replacements.sort((a, b) => b.start - a.start);
  let out = text;
  for (const r of replacements) out = out.slice(0, r.start) + r.text + out.slice(r.end);
  if (out !== text) edits.push({ file, text: out });
}

if (problems.length > 0) {
  console.error(`rewrite-api-imports: nothing written; fix these by hand first:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
for (const e of edits) {
  console.log(`${dryRun ? 'would rewrite' : 'rewrote'} ${relative(process.cwd(), e.file)}`);
  if (!dryRun) writeFileSync(e.file, e.text);
}
for (const b of [...barrels].sort()) {
  console.log(`${dryRun ? 'would delete' : 'deleted'} ${relative(process.cwd(), `${b}.ts`)}`);
  if (!dryRun) unlinkSync(`${b}.ts`);
}
console.log(`rewrite-api-imports: ${edits.length} files, ${barrels.size} barrels${dryRun ? ' (dry run: nothing written)' : ''}`);
