import escapeHtml from 'escape-html';

/**
 * The embedded authorization server's sign-in page: an assistant asks to act as a member, who
 * proves who they are with a one-time code from `seqflow login-code --user <subject>`. Entering
 * the code is also the consent: the page says which client asks and what it may do.
 */
export function signInPage(input: { clientName: string; action: string; error?: string }): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to Seqflow</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1a1a1a; }
  h1 { font-size: 1.4rem; } .error { color: #a40000; } code { background: #f2f2f2; padding: 0 .2em; }
  input { font: inherit; letter-spacing: .1em; padding: .4rem; width: 100%; box-sizing: border-box; } button { font: inherit; margin-top: 1rem; padding: .4rem 1rem; }
</style>
</head>
<body>
<h1>Sign in to Seqflow</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> asks to build, publish and test flows in your organizations, as you.</p>
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
