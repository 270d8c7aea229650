import { render } from 'preact';
import { plainError } from './api-errors';
import { createAuth } from './auth';
import { parseConfig } from './config';
import './styles.css';
import { App } from './views/app';

/** Reads config.json beside index.html, finishes a sign-in that is coming back, then shows the app. */
async function start(root: HTMLElement) {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (!response.ok) throw new Error(`config.json answered ${response.status}`);
    const config = parseConfig(await response.json());
    const auth = createAuth(config, window.location);
    let signInError: string | null = null;
    await auth.completeSignInIfReturning().catch((error: Error) => {
      signInError = `The sign-in did not complete (${error.message}). Sign in again.`;
    });
    render(<App config={config} auth={auth} user={await auth.user()} signInError={signInError} />, root);
  } catch (error) {
    render(
      <main>
        <h1>Developer dashboard</h1>
        <p role="alert">The dashboard could not start: {plainError(error)}</p>
      </main>,
      root,
    );
  }
}

void start(document.getElementById('app')!);
