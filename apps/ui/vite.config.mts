import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { bundleBudget } from './scripts/bundle-budget.mjs';

/** The JavaScript of a first page load, gzipped (issue: initial JS under 500 KB, the editor loaded lazily). */
const INITIAL_JS_BUDGET_KB = 500;

// The web UI's bundle, served by the api role at `/` (libs/roles/api/src/http/web-ui.ts).
// Everything is bundled: nothing is loaded from another host at run time.
export default defineConfig({
  base: '/',
  plugins: [react(), bundleBudget({ limitKb: INITIAL_JS_BUDGET_KB })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    // `npx vite` in apps/ui during development: the API of a local `npm start`.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
