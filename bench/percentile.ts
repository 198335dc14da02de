/** The p-th percentile of ascending `sorted` (nearest rank), 0 for no samples. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
