// The workspace's rules, with its TypeScript errors extended to the UI's .tsx files.
import root from '../../eslint.config.mjs';

export default [
  ...root,
  // The root config's ignore of this generated file is relative to the root: linted from here, it is not matched.
  { ignores: ['src/api/schema.d.ts'] },
  {
    files: ['**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // This file shares the workspace's config by a relative import (as the Jest configs share the preset).
  { files: ['eslint.config.mjs'], rules: { '@nx/enforce-module-boundaries': 'off' } },
];
