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

/**
 * The embedded authorization server's sign-in page: an assistant asks to act as a member. The
 * member has it approved from a browser: its request code, approved in the console ("Connect an
 * assistant") by the member or an operator signed in there, then Continue here. Or, headless, with
 * a one-time code from `seqflow login-code --user <subject>`. Approving or entering the code is the
 * consent: the page says which client asks (its self-declared name, and, as MCP 2025-11-25
 * requires, where the sign-in returns and where the client was registered), and what it may do.
 * A return to a program on this computer is called out: any program here can listen on a loopback port.
 */
export function signInPage(input: SignInRequester & { action: string; requestCode: string; consoleUrl: string | null; error?: string }): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  const where = input.returnsTo
    ? `<li>returns to <strong class="returns-to">${escapeHtml(`${input.returnsTo.scheme}://${input.returnsTo.host}`)}</strong></li>`
    : '<li>returns to an address that is not a URL</li>';
  const registered = input.documentHost ? `<li>described by a document at <strong class="document-host">${escapeHtml(input.documentHost)}</strong></li>` : '<li class="registered-here">registered here</li>';
  const consoleLink = input.consoleUrl ? `${input.consoleUrl}/#/assistants/${encodeURIComponent(input.requestCode)}` : null;
  const approveHow = consoleLink
    ? `Open <a class="console-link" href="${escapeHtml(consoleLink)}" target="_blank" rel="noopener">Connect an assistant</a> in the Seqflow console (signed in there), check that it shows this code, and approve it.`
    : 'In the Seqflow console, signed in there, open Assistants, enter this code under Connect an assistant, and approve it (or ask an operator to).';
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
  h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; } .request-code { font-size: 1.2rem; letter-spacing: .1em; } .error { color: #a40000; } .warning { background: #fff4d6; padding: .5rem; } code { background: #f2f2f2; padding: 0 .2em; }
  input { font: inherit; letter-spacing: .1em; padding: .4rem; width: 100%; box-sizing: border-box; } button { font: inherit; margin-top: 1rem; padding: .4rem 1rem; }
</style>
</head>
<body>
<h1>Sign in to Seqflow</h1>
<p><strong class="client-name">${escapeHtml(input.clientName)}</strong> (its own name for itself) asks ${input.readOnly ? '<strong class="read-only">to read</strong> your organizations\' flows, runs, tests and backtests (read only: it can change nothing and run nothing)' : 'to build, publish and test flows in your organizations'}, as you. It:</p>
<ul>${where}${registered}</ul>
${loopback}
${error}
<h2>Approve it in the console</h2>
<p>Request code <strong class="request-code">${escapeHtml(input.requestCode)}</strong>. ${approveHow}</p>
<form method="post" action="${escapeHtml(input.action)}">
  <input type="hidden" name="approved" value="1">
  <button type="submit" class="continue">Continue once approved</button>
</form>
<h2>Or sign in with a code</h2>
<form method="post" action="${escapeHtml(input.action)}">
  <label for="code">One-time sign-in code</label>
  <input id="code" name="code" autocomplete="one-time-code" autofocus required placeholder="ABCDE-FGHJK">
  <button type="submit">Sign in and allow</button>
</form>
<p>Without the console (a headless install): get a code with <code>seqflow login-code --user &lt;your subject&gt;</code>; it works once, for 10 minutes.</p>
</body>
</html>`;
}
