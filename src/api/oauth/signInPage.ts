import escapeHtml from 'escape-html';

/** Who asks, as the page shows it: the name the client gave itself is not proof, where it returns and where it was registered are. */
export interface SignInRequester {
  clientName: string;
  /** Where the sign-in returns: the redirect URI's scheme and host (with its port). */
  returnsTo: { scheme: string; host: string; loopback: boolean } | null;
  /** The host of a client ID metadata document's URL, or null for a client registered here. */
  documentHost: string | null;
  /** It asks for the reading tools only (the read-only endpoint, or the `mcp:read` scope). */
  readOnly: boolean;
}

/** A redirect URI as the page names it; null when it is not a URL. */
export function returnsToOf(redirectUri: string): SignInRequester['returnsTo'] {
  const url = URL.parse(redirectUri);
  if (!url) return null;
  const loopback = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  return { scheme: url.protocol.replace(/:$/, ''), host: url.host || url.pathname.split('/')[0] || '', loopback };
}

/**
 * The embedded authorization server's sign-in page: an assistant asks to act as a member, who
 * proves who they are with a one-time code from `seqflow login-code --user <subject>`. Entering
 * the code is also the consent: the page says which client asks (its self-declared name, and, as
 * MCP 2025-11-25 requires, where the sign-in returns and where the client was registered), and
 * what it may do. A return to a program on this computer is called out: any program here can
 * listen on a loopback port.
 */
export function signInPage(input: SignInRequester & { action: string; error?: string }): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  const where = input.returnsTo
    ? `<li>returns to <strong class="returns-to">${escapeHtml(`${input.returnsTo.scheme}://${input.returnsTo.host}`)}</strong></li>`
    : '<li>returns to an address that is not a URL</li>';
  const registered = input.documentHost ? `<li>described by a document at <strong class="document-host">${escapeHtml(input.documentHost)}</strong></li>` : '<li class="registered-here">registered here</li>';
  const loopback = input.returnsTo?.loopback
    ? '<p class="warning" role="note">It returns to a program on this computer. Sign in only if you have just started that assistant here yourself.</p>'
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to Seqflow</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1a1a1a; }
  h1 { font-size: 1.4rem; } .error { color: #a40000; } .warning { background: #fff4d6; padding: .5rem; } code { background: #f2f2f2; padding: 0 .2em; }
  input { font: inherit; letter-spacing: .1em; padding: .4rem; width: 100%; box-sizing: border-box; } button { font: inherit; margin-top: 1rem; padding: .4rem 1rem; }
</style>
</head>
<body>
<h1>Sign in to Seqflow</h1>
<p><strong class="client-name">${escapeHtml(input.clientName)}</strong> (its own name for itself) asks ${input.readOnly ? '<strong class="read-only">to read</strong> your organizations\' flows, runs, tests and backtests (read only: it can change nothing and run nothing)' : 'to build, publish and test flows in your organizations'}, as you. It:</p>
<ul>${where}${registered}</ul>
${loopback}
${error}
<form method="post" action="${escapeHtml(input.action)}">
  <label for="code">One-time sign-in code</label>
  <input id="code" name="code" autocomplete="one-time-code" autofocus required placeholder="ABCDE-FGHJK">
  <button type="submit">Sign in and allow</button>
</form>
<p>Get a code with <code>seqflow login-code --user &lt;your subject&gt;</code>; it works once, for 10 minutes.</p>
</body>
</html>`;
}
