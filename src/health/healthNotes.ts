/**
 * What this process knows is wrong with itself and cannot fix by retrying: conditions its parts
 * raise and clear (a worker whose master key cannot open an organization's webhook secret...).
 * /health shows them counted by code, and the log has each subject; bounded, so a flood of subjects
 * cannot grow it without end (past the bound a new subject is not kept: the log still has it).
 */
export interface HealthNote {
  code: string;
  /** What it is about: an organization id, a delivery id. */
  subject: string;
  message: string;
  since: string;
}

export function createHealthNotes(options: { max?: number; now?: () => Date } = {}) {
  const max = options.max ?? 1000;
  const now = options.now ?? (() => new Date());
  const notes = new Map<string, HealthNote>();
  const keyOf = (code: string, subject: string) => `${code}\u0000${subject}`;
  return {
    raise(code: string, subject: string, message: string) {
      const key = keyOf(code, subject);
      if (notes.has(key)) return;
      if (notes.size >= max) return;
      notes.set(key, { code, subject, message, since: now().toISOString() });
    },
    clear(code: string, subject: string) {
      notes.delete(keyOf(code, subject));
    },
    /** Counts by code, with one note's message each: what /health shows. */
    summary(): { code: string; count: number; message: string }[] {
      const byCode = new Map<string, { code: string; count: number; message: string }>();
      for (const note of notes.values()) {
        const entry = byCode.get(note.code) ?? { code: note.code, count: 0, message: note.message };
        entry.count++;
        byCode.set(note.code, entry);
      }
      return [...byCode.values()];
    },
  };
}

export type HealthNotes = ReturnType<typeof createHealthNotes>;
