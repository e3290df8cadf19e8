// ESLint flat config: typescript-eslint (type-checked), react-hooks, and a local rule that
// every exported declaration in src/ has a /** doc comment */.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import i18next from 'eslint-plugin-i18next';
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

/**
 * The UI's words go through the catalogues: a title, aria-label, placeholder, alt or label
 * attribute may not be a literal with words in it, except a URL or a name kept in every
 * language (ArtifactFlow). JSX text is checked by eslint-plugin-i18next.
 * @type {import('eslint').Rule.RuleModule}
 */
const noLiteralUiAttribute = {
  meta: {
    type: 'problem',
    docs: { description: 'Require user-visible attributes to come from the i18n catalogues' },
    messages: { literal: '{{name}}="{{value}}" is shown to the user: take it from the catalogue with t().' },
    schema: [],
  },
  create(context) {
    const shown = new Set(['title', 'aria-label', 'aria-description', 'aria-roledescription', 'placeholder', 'alt', 'label']);
    const kept = /^(https?:\/\/\S*|ArtifactFlow|[\s\d\p{P}\p{S}]*)$/u;
    const literalOf = (v) => {
      if (!v) return null;
      if (v.type === 'Literal' && typeof v.value === 'string') return v.value;
      if (v.type === 'JSXExpressionContainer') {
        const e = v.expression;
        if (e.type === 'Literal' && typeof e.value === 'string') return e.value;
        if (e.type === 'TemplateLiteral' && e.expressions.length === 0) return e.quasis[0].value.cooked;
      }
      return null;
    };
    return {
      JSXAttribute(node) {
        const name = node.name.type === 'JSXIdentifier' ? node.name.name : '';
        if (!shown.has(name)) return;
        const value = literalOf(node.value);
        if (value === null || kept.test(value.trim()) || !/\p{L}/u.test(value)) return;
        context.report({ node, messageId: 'literal', data: { name, value } });
      },
    };
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
    plugins: {
      'react-hooks': reactHooks,
      local: { rules: { 'require-export-doc': requireExportDoc, 'no-literal-ui-attribute': noLiteralUiAttribute } },
    },
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
    plugins: { i18next },
    rules: {
      'local/require-export-doc': 'error',
      // Every word the UI shows comes from src/locales: JSX text here, the shown attributes
      // by the local rule; src/i18n.test.ts checks the keys are in both languages. Allowed
      // as written: punctuation, numbers, key names, the version's "v".
      'i18next/no-literal-string': [
        'error',
        {
          mode: 'jsx-text-only',
          words: {
            exclude: ['[\\s\\d!-/:-@[-`{-~—–−‹›“”‘’·…⋯→←↑↓✕×]+', '[A-Z_-]+', 'v', 'ArtifactFlow', '\\+N', 'Esc|Enter|Shift|Ctrl|Alt|Tab|⌘|Cmd'],
          },
        },
      ],
      'local/no-literal-ui-attribute': 'error',
      // Components and functions stay small enough to read.
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
    },
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
