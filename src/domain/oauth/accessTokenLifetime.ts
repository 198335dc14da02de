/** How long an access token of the embedded authorization server is valid: an hour, then the client refreshes. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** Clock skew a verifier may allow: a key is kept this much longer than the tokens it signed could live. */
export const KEY_RETIREMENT_MARGIN_SECONDS = 300;
