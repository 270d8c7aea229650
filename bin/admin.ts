// `npm run admin -- <command>`: platform commands against the local state (.local/) or a deployed
// stage. When `npm start` owns the state folder, the command runs inside it (the admin channel).
// The pinned AWS SDK runs on this machine's Node 20; its notice that 2027 releases need Node 22 is
// for whoever upgrades the SDK, not for every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { AdminChannelError, sendToServer } from '../local/admin-channel/channel-client';
import { processContext, ServedByRunningServer } from './admin-context';
import { EXIT, runAdminCommand } from './admin-program';

const argv = process.argv.slice(2);

async function main(): Promise<number> {
  try {
    return await runAdminCommand(argv, processContext());
  } catch (error) {
    if (!(error instanceof ServedByRunningServer)) throw error;
    try {
      return await sendToServer(error.dataDir, error.owner, { argv, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
    } catch (failure) {
      if (!(failure instanceof AdminChannelError)) throw failure;
      console.error(`admin: ${failure.message}`);
      return EXIT.failure;
    }
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    console.error(`admin: ${error.name}: ${error.message}`);
    process.exitCode = EXIT.failure;
  },
);
