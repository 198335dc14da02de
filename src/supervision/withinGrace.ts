/** Waits for `work` to settle, at most `graceMs`; true when it settled in time. */
export async function withinGrace(work: Promise<unknown>, graceMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
