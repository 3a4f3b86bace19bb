import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.scratch/**', 'src/content/block-model-weights.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: [
      'src/content/**',
      'src/engines/**',
      'src/crawl/**',
      'src/extract/**',
      'src/search/**',
      'src/lib/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/routes/**', '**/services/**', 'fastify', '@fastify/*'] },
      ],
    },
  },
  {
    files: ['src/**'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config.ts only.' },
      ],
    },
  },
);
