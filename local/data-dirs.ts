import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm start` and the admin CLI keep the embedded stack's state unless told otherwise. */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../.local', import.meta.url));
/** `npm start -- --engines` keeps its own: its table and keys are not the embedded stack's. */
export const LOCAL_AWS_DATA_DIR = fileURLToPath(new URL('../.local-aws', import.meta.url));
const IMPORTS_DIR = fileURLToPath(new URL('../.local-imports', import.meta.url));
const LOCAL_AWS_IMPORTS_DIR = fileURLToPath(new URL('../.local-aws-imports', import.meta.url));

/** The state folder for a catalogue imported from public source files (`npm start -- --data <folder>`), per mode. */
export function importedDataDirFor(sources: readonly string[], mode: 'embedded' | 'engines' = 'embedded'): string {
  const name = sources
    .map((source) => basename(source).replace(/\.[^.]*$/, ''))
    .join('+')
    .replace(/[^A-Za-z0-9+_-]+/g, '-');
  return join(mode === 'engines' ? LOCAL_AWS_IMPORTS_DIR : IMPORTS_DIR, name.slice(0, 80) || 'catalogue');
}
