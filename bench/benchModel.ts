/** Flows on this model stand for a slow provider: the bench's model server answers it after a second. */
export const SLOW_MODEL = 'gpt-4o';
export const SLOW_MODEL_DELAY_MS = 1000;
