/**
 * The page's HTML: a shell that loads the script and stylesheet (the script builds everything
 * else from the JSON read side), and the page shown when reading needs a key. No inline script
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

/** Why the page is not shown. */
export type PageRefusal = 'key-needed' | 'wrong-key' | 'wrong-host' | 'no-access';

/**
 * The page shown instead when reading is not allowed: a form that asks for one of the
 * endpoint's reader tokens (it reloads the page as `/?key=…`; the page keeps it in sessionStorage
 * and takes it out of the address), or the addresses to use instead.
 */
export function refusalHtml(reason: PageRefusal): string {
  if (reason === 'wrong-host') {
    return htmlDocument(`<main class="notice"><h1>${PAGE_TITLE}</h1>
<p>This endpoint only answers pages opened at <strong>localhost</strong> or <strong>127.0.0.1</strong> (so other web sites cannot read it). Open it at one of those addresses.</p></main>`, false);
  }
  if (reason === 'no-access') {
    return htmlDocument(`<main class="notice"><h1>${PAGE_TITLE}</h1>
<p>You are signed in, but not as one of this endpoint's readers. Ask its operator for read access.</p></main>`, false);
  }
  const why = reason === 'wrong-key'
    ? 'That is not one of this endpoint\'s reader tokens (write keys cannot read).'
    : 'Reading this endpoint needs a reader token.';
  return htmlDocument(`<main class="notice"><h1>${PAGE_TITLE}</h1>
<p>${why}</p>
<form method="get" action="./" class="key-form">
<label>Reader token <input type="password" name="key" autocomplete="off" required></label>
<button type="submit">Open</button>
</form></main>`, false);
}
