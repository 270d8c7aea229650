import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog on the native <dialog> (showModal makes the rest of the page inert), with Tab
 * kept inside it, Escape as cancel, and the focus given back to what opened it.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    const first = dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus();
      // The dialog may leave the page after this cleanup, taking the focus to <body>: give it back then too.
      setTimeout(() => {
        if (opener?.isConnected && (document.activeElement === document.body || document.activeElement === null)) opener.focus();
      }, 0);
    };
  }, []);

  function keepFocusInside(event: KeyboardEvent) {
    if (event.key !== 'Tab') return;
    const focusable = [...ref.current!.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (focusable.length === 0) return;
    const first = focusable[0]!;
    const last = focusable[focusable.length - 1]!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onKeyDown={keepFocusInside}
      onCancel={(event) => {
        // Escape: close through the app's state, so the dialog and the state never disagree.
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
