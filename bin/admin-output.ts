// How admin commands print: the human lines by default, or with --json one JSON document on stdout
// that scripts parse (docs/admin.md gives each command's shape). Notes for people go to stderr either way.
import type { Command } from 'commander';
import type { AdminContext } from './admin-context';

export interface OutputOptions {
  json?: boolean;
}

export function withJsonOption(command: Command): Command {
  return command.option('--json', 'print one JSON document (docs/admin.md) instead of the table', false);
}

/** The command's result: `document` as JSON with --json, else `lines()` printed one per line. */
export function emit(context: AdminContext, opts: OutputOptions, document: unknown, lines: () => readonly (string | number)[]): void {
  if (opts.json) context.io.stdout(`${JSON.stringify(document, null, 2)}\n`);
  else for (const line of lines()) context.io.stdout(`${line}\n`);
}
