import { defineConfig } from 'vite';

export default defineConfig({
  // Do not pre-bundle the package in dev: esbuild would move client.js away from worker.js
  // and isolated_realm_bg.wasm, breaking their `new URL(..., import.meta.url)`.
  optimizeDeps: { exclude: ['isolated-realm'] },
  worker: { format: 'es' },
  build: { target: 'es2022' },
});
