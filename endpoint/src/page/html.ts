/**
 * The page's HTML: a shell that loads the script and stylesheet (the script builds everything
 * else from the JSON read side, and asks for a reader token when it needs one), and the page
 * shown when an auth proxy's user may not read. No inline script
 * or style, and nothing from a request is written into the HTML.
 */

/** The title shown in the browser tab and the page header. */
export const PAGE_TITLE = 'Conversation analytics';

function htmlDocument(body: string, script: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${PAGE_TITLE}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="page/app.css">
${script ? '<script type="module" src="page/app.js"></script>\n' : ''}</head>
<body>
${body}
</body>
</html>
`;
}

/** The page itself: the script fills `#app`. */
export const PAGE_HTML = htmlDocument(`<noscript><p class="notice">This page needs JavaScript. The same data is available as JSON: see <a href="api">/api</a>.</p></noscript>
<div id="app" class="app"></div>`, true);

/** Why the page is not shown (behind an auth proxy; with reader tokens, the page itself asks for one). */
export type PageRefusal = 'proxy-sign-in' | 'no-access';

/** The page shown instead when the auth proxy named no user, or a user without read access. */
export function refusalHtml(reason: PageRefusal): string {
  const why = reason === 'no-access'
    ? 'You are signed in, but not as one of this endpoint\'s readers. Ask its operator for read access.'
    : 'Reading this endpoint needs signing in through its sign-in gateway; this request came without a signed-in user. Open the page at the gateway\'s address.';
  return htmlDocument(`<main class="notice"><h1>${PAGE_TITLE}</h1>
<p>${why}</p></main>`, false);
}
