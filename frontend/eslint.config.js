// ESLint flat config: typescript-eslint (type-checked), react-hooks, and a local rule that
// every exported declaration in src/ has a /** doc comment */.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** @type {import('eslint').Rule.RuleModule} */
const requireExportDoc = {
  meta: {
    type: 'suggestion',
    docs: { description: 'Require a /** doc comment */ on exported functions, classes, types and constants' },
    messages: { missing: 'Exported "{{name}}" needs a /** doc comment */.' },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;
    const hasDoc = (node) =>
      source.getCommentsBefore(node).some((c) => c.type === 'Block' && c.value.startsWith('*'));
    const nameOf = (decl) => {
      if (decl.id?.name) return decl.id.name;
      if (decl.type === 'VariableDeclaration') return decl.declarations.map((d) => d.id.name ?? '?').join(', ');
      return 'default';
    };
    const check = (exportNode) => {
      const decl = exportNode.declaration;
      if (!decl) return; // `export { a, b }` re-exports are documented where declared
      if (!hasDoc(exportNode) && !hasDoc(decl)) {
        context.report({ node: exportNode, messageId: 'missing', data: { name: nameOf(decl) } });
      }
    };
    return { ExportNamedDeclaration: check, ExportDefaultDeclaration: check };
  },
};

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'wailsjs'] },
  js.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}', 'vite.config.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      globals: globals.browser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'react-hooks': reactHooks, local: { rules: { 'require-export-doc': requireExportDoc } } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: false }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.{ts,tsx}'],
    rules: { 'local/require-export-doc': 'error' },
  },
  {
    files: ['src/**/*.test.{ts,tsx}'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
