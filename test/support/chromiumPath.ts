/** Debian's Chromium (`apt-get install chromium`, done by .ci/run), or CHROMIUM_PATH. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
