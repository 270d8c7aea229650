import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The client as its users get it: packed the way npm publishes it, installed into a fresh folder,
 * and imported by its package name. Its other tests import src/, which cannot show that the
 * package itself is broken (no dist/, a wrong export).
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXPECTED_EXPORTS = [
  'ApiError',
  'DEFAULT_TOLERANCE_SECONDS',
  'OFFSET_MAX',
  'PAGE_MAX',
  'PagingLimitError',
  'READ_ONLY_POST_PATHS',
  'RETRYABLE_STATUSES',
  'createClient',
  'retryAfterMs',
  'verifyWebhookSignature',
];
const LIST_EXPORTS = `import('@gcf/data-service-client').then((m) => console.log(JSON.stringify(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v])))))`;

const folders: string[] = [];
const folder = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('the TypeScript client package', () => {
  it('imports by its package name from the repository after install', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', LIST_EXPORTS], { cwd: ROOT });
    const exports = JSON.parse(stdout) as Record<string, string>;
    expect(Object.keys(exports).sort()).toEqual(EXPECTED_EXPORTS);
    expect(exports.createClient).toBe('function');
  });

  it('packs, installs into a fresh folder and imports by its package name, with its types', async () => {
    const packed = folder('gcf-client-pack-');
    await run('npm', ['pack', '--workspace', '@gcf/data-service-client', '--pack-destination', packed, '--silent'], { cwd: ROOT, timeout: 120_000 });
    const [tarball] = readdirSync(packed).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(/^gcf-data-service-client-\d+\.\d+\.\d+\.tgz$/);

    const app = folder('gcf-client-app-');
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'client-user', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', join(packed, tarball!)], { cwd: app, timeout: 180_000 });
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', LIST_EXPORTS], { cwd: app });
    const exports = JSON.parse(stdout) as Record<string, string>;
    expect(exports).toMatchObject({ createClient: 'function', verifyWebhookSignature: 'function', ApiError: 'function' });

    // A user's TypeScript resolves the package's declarations, and a wrong call is a type error.
    writeFileSync(
      join(app, 'use.ts'),
      [
        "import { createClient, type DataServiceClient } from '@gcf/data-service-client';",
        "const client: DataServiceClient = createClient({ baseUrl: 'http://127.0.0.1:3000/functions/v1', apiKey: 'gcf_live_x' });",
        'export default client;',
      ].join('\n'),
    );
    writeFileSync(join(app, 'wrong.ts'), "import { createClient } from '@gcf/data-service-client';\nexport default createClient(42);\n");
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const options = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      join(ROOT, 'node_modules', '@types'),
    ];
    await run(process.execPath, [tsc, ...options, 'use.ts'], { cwd: app });
    await expect(run(process.execPath, [tsc, ...options, 'wrong.ts'], { cwd: app })).rejects.toMatchObject({ stdout: expect.stringContaining('wrong.ts') });
  }, 240_000);
});
