// A sandbox worker that takes its time to start (as one does on a loaded machine): longer than the
// limits the test gives its blocks. Then it is the real worker.
await new Promise((resolve) => setTimeout(resolve, 3000));
await import('../../src/execution/processors/codeSandboxWorkerEntry.mjs');
