import { type ChildProcess, spawn } from 'node:child_process';

export interface RunningLocalServer {
  child: ChildProcess;
  baseUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then resolves once it has exited (its state folder closed). */
  stop(): Promise<void>;
  /** SIGKILL: as if the machine lost the process, nothing closed or cleaned. */
  kill(): Promise<void>;
}

/** `npm start` in a child process on PORT 0, once it says "API ready"; rejects with its output if it exits first. */
export async function startLocalServer(args: readonly string[], env: Record<string, string> = {}): Promise<RunningLocalServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', ...args], { env: { ...process.env, PORT: '0', ...env } });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /API ready at (\S+)/.exec(output);
      if (ready) resolve(ready[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { child, baseUrl, output: () => output, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}
