// Entry of a sandbox worker thread. Node 24 runs the TypeScript worker directly; an older runtime
// (started through tsx) gets tsx's loader registered in this thread first.
if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import('./codeSandboxWorker.ts');
