import { defineConfig } from 'vite';

// The operator console page: built by `npm run build` into dist/console, which the console listener
// serves at `/`. Everything is bundled: the page loads nothing from another origin.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      // React Query marks its modules "use client" (for server-component bundlers); a plain page has no server side.
      onwarn: (warning, warn) => (warning.code === 'MODULE_LEVEL_DIRECTIVE' ? undefined : warn(warning)),
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  logLevel: 'warn',
});
