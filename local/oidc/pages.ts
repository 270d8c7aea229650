import { encode } from 'html-entities';

/**
 * The local provider's pages: plain HTML forms that work with a keyboard and a screen reader
 * (labelled fields, errors announced), with no script and nothing fetched from elsewhere.
 */

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f24}
main{max-width:24rem;margin:3rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.5rem;margin-top:0}label{display:block;font-weight:600;margin-top:1rem}
input{box-sizing:border-box;width:100%;padding:.5rem;font:inherit;border:1px solid #6b7280;border-radius:4px}
button{margin-top:1.25rem;padding:.5rem 1rem;font:inherit;font-weight:600;border-radius:4px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d4ed8}:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{color:#b91c1c;font-weight:600}.hint{color:#4b5563;font-size:.875rem}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${encode(title)} · Grants, Contracts and Funders Data Service (local)</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export function signInPage(options: { action: string; cancelAction: string; email?: string; error?: string }): string {
  const error = options.error ? `<p id="sign-in-error" class="error" role="alert">${encode(options.error)}</p>\n` : '';
  const described = options.error ? ' aria-describedby="sign-in-error" aria-invalid="true"' : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>Local sign-in for the developer dashboard.</p>
${error}<form method="post" action="${encode(options.action)}">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${encode(options.email ?? '')}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${encode(options.cancelAction)}">
<button type="submit" class="secondary">Cancel</button>
</form>
<p class="hint"><code>npm start</code> prints the development account; its password is kept in the state folder's <code>oidc-provider.json</code>.</p>`,
  );
}

/** oidc-provider's end_session confirmation; `form` is its hidden form (with the xsrf token) the buttons submit. */
export function signOutPage(form: string): string {
  return page(
    'Sign out',
    `<h1>Sign out?</h1>
<p>You will be signed out of the developer dashboard on this computer.</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
<button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>`,
  );
}

export function signedOutPage(): string {
  return page('Signed out', '<h1>Signed out</h1>\n<p>You are signed out. You can close this page.</p>');
}

/** An error of the sign-in flow: its OAuth error code and description (oidc-provider's words, never a token or a password). */
export function errorPage(error: string, description?: string): string {
  return page(
    'Sign-in error',
    `<h1>Sign-in cannot go on</h1>\n<p role="alert"><strong>${encode(error)}</strong>${description ? `: ${encode(description)}` : ''}</p>`,
  );
}
