/** What a label value past its bound is counted as. */
export const OTHER_LABEL = 'other';

/**
 * A label whose values come from users (flow ids): the first `max` distinct values keep their own
 * series, later ones share `other`. Prometheus keeps every series a label ever had in memory, and
 * so would this process.
 */
export function boundedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return OTHER_LABEL;
    seen.add(value);
    return value;
  };
}
