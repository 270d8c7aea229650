import { useEffect, useRef, useState } from 'preact/hooks';

/** Puts text on the clipboard; false when the browser refuses (then the person copies it by hand). */
async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A key value, shown this once: a copy button, and the warning that it will not be shown again. */
export function NewKey(props: { title: string; apiKey: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>('');
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="new-key" aria-labelledby="new-key-heading">
      <h2 id="new-key-heading" ref={heading} tabIndex={-1}>
        {props.title}
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Only a hash of it is stored, so nobody can show it to you later.
      </p>
      <label for="new-key-value">Key value</label>
      <input id="new-key-value" ref={field} readOnly value={props.apiKey} size={48} spellcheck={false} onFocus={() => field.current?.select()} />
      <button
        type="button"
        onClick={async () => {
          const done = await copy(props.apiKey);
          if (!done) field.current?.select();
          setCopied(done ? 'Copied to the clipboard.' : 'The browser did not allow copying: the key is selected, copy it with your keyboard.');
        }}
      >
        Copy
      </button>
      <p role="status">{copied}</p>
      <button type="button" onClick={props.onDone}>
        I have saved it
      </button>
    </section>
  );
}
