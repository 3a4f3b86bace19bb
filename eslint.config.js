import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The folders above the pipeline: the job engine, the operations, the surfaces and the composition. */
const SURFACES = ['http', 'firecrawl', 'interfaces', 'app', 'cli'];
const ABOVE_PIPELINE = ['jobs', 'operations', ...SURFACES];

/** One rule per folder: the folders it must not import (and no web framework below the surfaces). */
function layers(forbidden) {
  return Object.entries(forbidden).map(([files, folders]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...folders.map((folder) => ({
              group: [`**/${folder}/**`],
              message: `${files} sits below ${folder}/ (docs/architecture.md)`,
            })),
            ...(folders.includes('http')
              ? [{ group: ['fastify', '@fastify/*'], message: 'no web framework below the surfaces' }]
              : []),
          ],
        },
      ],
    },
  }));
}

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', '.scratch/**', 'src/content/main-content/block-model-weights.ts'],
  },
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
  // The layers (docs/architecture.md): each folder imports only the ones below it.
  ...layers({
    'src/lib/**': ['content', 'engines', 'crawl', 'extract', 'search', 'pipeline', ...ABOVE_PIPELINE],
    'src/content/**': ['engines', 'crawl', 'extract', 'search', 'pipeline', ...ABOVE_PIPELINE],
    'src/{engines,crawl,extract,search}/**': ['pipeline', ...ABOVE_PIPELINE],
    'src/pipeline/**': ABOVE_PIPELINE,
    'src/jobs/**': ['operations', ...SURFACES],
    'src/operations/**': SURFACES,
    'src/sessions/**': ['operations', ...SURFACES],
    'src/{http,interfaces}/**': ['firecrawl', 'app', 'cli'],
    'src/firecrawl/**': ['interfaces', 'app', 'cli'],
  }),
  {
    files: ['src/**'],
    ignores: ['src/config/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in src/config/ only.' },
      ],
    },
  },
);
