// An admin command run inside `npm start` for a client of the admin channel: the same program as
// the CLI's, on the server's own stack, printing to the client.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AdminChannelError } from '../local/admin-channel/channel-client';
import type { AdminRequest } from '../local/admin-channel/channel-protocol';
import type { ChannelIo } from '../local/admin-channel/channel-server';
import type { EmbeddedStack } from '../local/embedded-stack';
import type { AdminContext } from './admin-context';
import { runAdminCommand } from './admin-program';

/** `keys create`: the command's path under the program, never a value given to it. */
function commandPathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

export async function runServedCommand(
  stack: EmbeddedStack,
  dataDir: string,
  request: AdminRequest,
  io: ChannelIo,
): Promise<{ exitCode: number; command: string | null }> {
  const served = realpathSync(dataDir);
  const ownStack = (asked: string): EmbeddedStack => {
    const folder = resolve(request.cwd, asked);
    let real = folder;
    try {
      real = realpathSync(folder);
    } catch {
      // A folder that does not exist is not this server's either.
    }
    if (real !== served) throw new AdminChannelError(`this server (npm start) serves ${served}, not ${folder}`);
    return stack;
  };
  let commandPath: string | null = null;
  const context: AdminContext = {
    io,
    cwd: request.cwd,
    exitCode: 0,
    beforeAction(command) {
      commandPath = commandPathOf(command);
      // The server's credentials are not the caller's to use: a stage is reached from the caller's own shell.
      if (command.opts().target === 'aws')
        throw new AdminChannelError(
          'the admin channel runs --target local commands only: run --target aws ones from your own shell, with your own credentials',
        );
    },
    withLocalStack: (asked, run) => run(ownStack(asked)),
    // Built beside the index being served and swapped in when full: the API never answers from a partial index.
    rebuildLocalIndex: async (asked) => {
      const terminal = io.progressStream;
      await ownStack(asked).rebuildIndex((kind, indexed, phase) => terminal?.write(`\r${phase.padEnd(8)} ${kind.padEnd(9)} ${indexed}`));
      terminal?.write('\n');
    },
  };
  const exitCode = await runAdminCommand(request.argv, context);
  return { exitCode, command: commandPath };
}
