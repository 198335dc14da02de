import escapeHtml from 'escape-html';

/**
 * The page a console link opens: one button that POSTs the link's token. No styles or scripts
 * inline (the console's content security policy allows neither).
 */
export const confirmPage = (token: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><title>Sign in to the Seqflow console</title></head>
<body>
<h1>Seqflow operator console</h1>
<p>This one-time link signs this browser in to the console (for 12 hours). It works once.</p>
<form method="post" action="/login"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Sign in</button></form>
</body>
</html>
`;
