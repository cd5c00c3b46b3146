// @ts-check
// ESLint for the whole code base, run by `npm run typecheck` with --max-warnings 0.
// No type-aware rules (parserOptions.project): they would add minutes on a 2-core machine.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

const CODE = ['src', 'webview-ui/src', 'test', 'bench', 'scripts'].map((d) => `${d}/**/*.{ts,tsx,mts,cts,js,mjs,cjs}`);

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'node_modules/', '.cache/', 'media/', 'test-results/', 'bench/out/', '**/*.d.ts'] },
  {
    files: CODE,
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@stylistic': stylistic },
    rules: {
      // Bugs worth catching.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-var': 'error',
      // A `let` read by a closure before its one assignment is the late-binding idiom, not a bug.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Off: tsc's noUnusedLocals / noUnusedParameters already fail the build on these (TS files; JS files below).
      '@typescript-eslint/no-unused-vars': 'off',
      // Off: the terminal / MCP / CLI sanitizers match control characters on purpose (18 findings, all intended).
      'no-control-regex': 'off',

      // Style the code already meets (no formatter has been run over the tree).
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      // No indent rule: the code mixes two ternary / call-argument layouts (71 findings either way); left to a formatter.
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
    },
  },
  {
    // One helper turns a thrown value into its message (src/core/error-text.ts), one says a count with its noun
    // (src/core/plural.ts); the webview cannot import them.
    files: ['src/**/*.ts'],
    ignores: ['src/core/error-text.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.property.name='message'][alternate.callee.name='String']",
          message: 'Use errorText(err) from src/core/error-text.ts.',
        },
        // People read "1 file" and "2 files", never "file(s)".
        { selector: 'Literal[value=/[a-z]\\(s\\)/]', message: 'Say the count with plural() from src/core/plural.ts.' },
        {
          selector: 'TemplateElement[value.raw=/[a-z]\\(s\\)/]',
          message: 'Say the count with plural() from src/core/plural.ts.',
        },
      ],
    },
  },
  {
    // Tests and benches stub SDKs, VS Code and wire formats; `any` there is the point (233 + 5 uses).
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript: tsc does not see these, so unused names are ESLint's job; CommonJS files require().
    files: ['**/*.{js,mjs,cjs}'],
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }] },
  },
  {
    files: ['**/*.{js,cjs}'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
