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
  /** When it was last raised (again): a condition seen recently is still current. */
  lastSeen: string;
}

export function createHealthNotes(options: { max?: number; now?: () => Date } = {}) {
  const max = options.max ?? 1000;
  const now = options.now ?? (() => new Date());
  const notes = new Map<string, HealthNote>();
  const keyOf = (code: string, subject: string) => `${code}\u0000${subject}`;
  return {
    raise(code: string, subject: string, message: string) {
      const key = keyOf(code, subject);
      const at = now().toISOString();
      const known = notes.get(key);
      if (known) {
        known.lastSeen = at;
        return;
      }
      if (notes.size >= max) return;
      notes.set(key, { code, subject, message, since: at, lastSeen: at });
    },
    clear(code: string, subject: string) {
      notes.delete(keyOf(code, subject));
    },
    /** When a note of this code and subject was last raised, or null when there is none. */
    lastSeen(code: string, subject: string): string | null {
      return notes.get(keyOf(code, subject))?.lastSeen ?? null;
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
