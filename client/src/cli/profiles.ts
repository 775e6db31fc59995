// Profiles: where each device is and the credential dagent keeps for it, in
// $XDG_CONFIG_HOME/dagent/profiles.json (else ~/.config/dagent/profiles.json), mode 0600,
// replaced whole by rename so a crash never leaves half a file. Never a password.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  url: string;
  token: string;
  /** Id of the API token login made (logout revokes it); null for a token given by --token-stdin. */
  tokenId: string | null;
  tokenName: string | null;
  username: string | null;
  /** Trust the device's key by this SPKI pin only. */
  pin?: string;
  /** Trust certificates issued by these CAs (PEM text). */
  ca?: string;
}

export interface ProfilesFile {
  profiles: Record<string, Profile>;
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'dagent', 'profiles.json');
}

export function profileName(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.DAGENT_PROFILE || 'default';
}

export function loadProfiles(file = profilesPath()): ProfilesFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<ProfilesFile>;
  if (!parsed || typeof parsed.profiles !== 'object' || parsed.profiles === null) throw new Error(`${file}: no "profiles" object`);
  return { profiles: parsed.profiles };
}

export function saveProfiles(data: ProfilesFile, file = profilesPath()): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // whatever the umask
  renameSync(tmp, file);
}
