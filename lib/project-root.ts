import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root (where package.json and package-lock.json live), located from this file
 * rather than the working directory so synth and tests resolve handler entries the same way.
 */
export const PROJECT_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
