// Builds both .deb packages once per test run (the executables from build.mjs, then
// packaging/build-deb.mjs with fast compression) and names what they should contain.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './agent.ts';

const run = promisify(execFile);

export const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
export const DEB_ARCHES = ['amd64', 'arm64'] as const;
export type DebArch = (typeof DEB_ARCHES)[number];

export const debPath = (arch: DebArch) => join(ROOT, 'dist', `device-agent_${VERSION}_${arch}.deb`);
export const ARM64_BIN = join(ROOT, 'dist/device-agent-linux-arm64');

let built: Promise<void> | undefined;

/** npm test has built dist/device-agent; this adds the arm64 executable and both packages. */
export function buildPackages(): Promise<void> {
  built ??= (async () => {
    await run(process.execPath, [join(ROOT, 'build.mjs'), '--all'], { cwd: ROOT, maxBuffer: 16 << 20 });
    await run(process.execPath, [join(ROOT, 'packaging/build-deb.mjs'), '--fast'], { cwd: ROOT });
  })();
  return built;
}

/** dpkg-deb's field of a package. */
export async function field(deb: string, name: string): Promise<string> {
  return (await run('dpkg-deb', ['--field', deb, name])).stdout.trim();
}

export async function contents(deb: string): Promise<Array<{ mode: string; owner: string; path: string }>> {
  const { stdout } = await run('dpkg-deb', ['--contents', deb], { maxBuffer: 16 << 20 });
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [mode, owner, , , , ...rest] = line.split(/\s+/);
      return {
        mode: mode!,
        owner: owner!,
        path: rest
          .join(' ')
          .replace(/^\./, '')
          .replace(/ -> .*$/, ''),
      };
    });
}
