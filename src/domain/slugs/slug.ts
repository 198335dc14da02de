import { z } from 'zod';

/** Lowercase letters, digits and hyphens; starts with a letter or digit; at most 63 characters. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const slugSchema = z
  .string()
  .regex(SLUG_PATTERN, 'must be 1-63 lowercase letters, digits and hyphens, starting with a letter or digit');
