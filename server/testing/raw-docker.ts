/**
 * Docker straight through dockerode, past Shoal: the independent view of a sandbox that
 * integration tests check against, and the raw side of every bench figure.
 */
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';

/** The container of a sandbox, found by the label every sandbox container carries. */
export async function sandboxContainer(sandboxId: string): Promise<Docker.Container> {
  const docker = new Docker();
  const [info] = await docker.listContainers({ filters: JSON.stringify({ label: [`shoal.sandbox=${sandboxId}`] }) });
  if (!info) throw new Error(`no container for sandbox ${sandboxId}`);
  return docker.getContainer(info.Id);
}

export interface RawExecResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

/**
 * One `docker exec`, as Shoal's runtime does it: create, start (hijacked; `stdin` written and
 * closed if given), demultiplex stdout and stderr to the end, then the exit code (which can lag
 * the end of the stream by a moment). `env`: extra `NAME=value` entries for the process.
 */
export async function rawExec(
  container: Docker.Container,
  argv: string[],
  stdin?: Buffer | string,
  env?: string[],
): Promise<RawExecResult> {
  const withStdin = stdin !== undefined;
  const exec = await container.exec({
    Cmd: argv,
    AttachStdin: withStdin,
    AttachStdout: true,
    AttachStderr: true,
    Env: env,
  });
  const stream = await exec.start({ hijack: true, stdin: withStdin });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const out = new PassThrough().on('data', (chunk: Buffer) => stdout.push(chunk));
  const err = new PassThrough().on('data', (chunk: Buffer) => stderr.push(chunk));
  container.modem.demuxStream(stream, out, err);
  await new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', reject);
    if (withStdin) stream.end(stdin);
  });
  let info = await exec.inspect();
  for (let attempt = 0; info.Running && attempt < 50; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    info = await exec.inspect();
  }
  return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), exitCode: info.ExitCode ?? -1 };
}
