// login and logout: the only commands that write profiles. login trusts the device's key
// (asked once on a terminal, given by --pin otherwise, then pinned), logs in with the password, makes an API token named
// dagent@<this host> and keeps that token, never the password.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { DeviceAgent } from '../client.ts';
import { ApiError, TrustError } from '../errors.ts';
import { isPin, peerCertificate, type Trust } from '../trust.ts';
import { NoCredentialError, UsageError, type Command, type Output, type Values } from './command.ts';
import { ask, askHidden, confirm, stdinLine } from './prompt.ts';
import { loadProfiles, profileName, profilesPath, saveProfiles, type Profile } from './profiles.ts';

/** A URL as users type it: https:// when no scheme is given, port 5050 when none is. */
export function normalizeUrl(text: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new UsageError(`not a URL: ${text}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`not an http:// or https:// URL: ${text}`);
  const explicitPort = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^/:?#]*):\d+/i.test(withScheme);
  if (!explicitPort) u.port = '5050';
  return u.origin;
}

/** The API token's name: dagent@<host>, within the agent's 1-64 of A-Z a-z 0-9 . _ @ -. */
export function tokenName(host = hostname()): string {
  return `dagent@${host.replace(/[^A-Za-z0-9._-]/g, '-')}`.slice(0, 64);
}

/** 127.0.0.0/8, ::1 and localhost: a password sent there never crosses a network. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** What to trust for this URL: --pin, --ca, the pin already stored for it, or what the person accepts now. */
async function decideTrust(url: string, values: Values, stored: Profile | undefined): Promise<Trust> {
  if (!url.startsWith('https:')) return {};
  const pin = values.pin as string | undefined;
  const caFile = values.ca as string | undefined;
  if (pin && caFile) throw new UsageError('--pin and --ca exclude each other');
  if (pin) {
    if (!isPin(pin)) throw new UsageError(`--pin must be sha256//<44 base64 characters>, not ${pin}`);
    return { pin };
  }
  if (caFile) {
    const ca = readFileSync(caFile, 'utf8');
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`${caFile} holds no PEM certificate`);
    return { ca };
  }
  // A profile of this device keeps its trust: a key change is then refused by the connection itself.
  if (stored && stored.url === url && (stored.pin || stored.ca)) return { pin: stored.pin, ca: stored.ca };
  const peer = await peerCertificate(url);
  if (peer.authorized) return {};
  process.stderr.write(
    `The device at ${url} presents a certificate that no CA of this system vouches for (${peer.authorizationError}).\n` +
      `  subject:      ${peer.subject}\n` +
      `  names:        ${peer.names}\n` +
      `  valid until:  ${peer.validTo}\n` +
      `  SHA-256 fingerprint: ${peer.fingerprint}\n` +
      `  SPKI pin:     ${peer.pin}\n` +
      'Check it on the device (sudo device-agent tls show) before you accept.\n',
  );
  // A pipe or a file is never asked: its first line would be taken as the answer, and a
  // password meant for the next question would be read (and was once echoed) in its place.
  if (!process.stdin.isTTY) {
    throw new TrustError(
      `not trusted: ${url} (standard input is not a terminal, so nobody was asked; ` +
        `once the pin is checked on the device: dagent login ${url} --pin ${peer.pin}, or --ca FILE)`,
      undefined,
      peer.pin,
    );
  }
  if (!(await confirm('Trust this key for this device?'))) {
    throw new TrustError(`not trusted: ${url} (to trust it without asking: dagent login ${url} --pin ${peer.pin})`, undefined, peer.pin);
  }
  return { pin: peer.pin };
}

async function readSecret(question: string, what: string): Promise<string> {
  if (process.stdin.isTTY) return askHidden(question);
  const line = await stdinLine();
  if (line === null || line === '') throw new UsageError(`no ${what} on standard input`);
  return line;
}

const login: Command = {
  name: 'login',
  args: 'URL',
  summary: 'Log in to a device and keep an API token for it in a profile',
  description:
    'Asks the password (without echo on a terminal; else one line of standard input, never echoed), makes the API\n' +
    'token dagent@<this host> with your rights (replacing an older one of that name) and stores URL, token and TLS\n' +
    `trust in ${profilesPath()} (mode 0600). The password is never stored.\n` +
    "A self-signed device: its key's SPKI pin and fingerprint are shown and, on a terminal, you are asked once; the pin\n" +
    'is stored and a different key is refused from then on. When standard input is not a terminal nobody is asked:\n' +
    'give --pin (or --ca), else login stops before sending anything (exit 4).\n' +
    'URL defaults to https:// and port 5050. An http:// URL of another machine than this one is refused (exit 2)\n' +
    'unless --insecure-http is given.',
  examples: [
    'dagent login https://10.0.0.5:5050 --user admin',
    'dagent login pi.local --user ops --pin sha256//q8V...=',
    'echo "$PASSWORD" | dagent login https://gw-7:5050 --user ci --pin sha256//q8V...= --profile gw-7',
    'echo "$TOKEN" | dagent login https://gw-7:5050 --token-stdin --pin sha256//q8V...= --profile gw-7',
  ],
  options: {
    user: { type: 'string', short: 'u', value: 'NAME', help: 'user name (asked on a terminal when absent)' },
    pin: { type: 'string', value: 'sha256//...', help: 'trust this key (SPKI pin, as device-agent tls show prints it) without asking' },
    ca: { type: 'string', value: 'FILE', help: 'trust certificates issued by the CA(s) in this PEM file' },
    'token-stdin': { type: 'boolean', help: 'store a token read from standard input instead of logging in' },
    'insecure-http': { type: 'boolean', help: 'allow an http:// URL of another machine (the password crosses the network in clear)' },
  },
  positionals: { min: 1, max: 1 },
  single: true,
  async run(ctx, [urlText], values): Promise<Output> {
    const url = normalizeUrl(urlText!);
    if (url.startsWith('http:') && !isLoopback(url) && !values['insecure-http']) {
      throw new UsageError(
        `refusing to log in over plain HTTP to ${url}, which is not this machine: the ${values['token-stdin'] ? 'token' : 'password'} ` +
          'would cross the network unencrypted; use https://, or --insecure-http to send it anyway',
      );
    }
    const name = profileName(values.profile as string | undefined);
    const data = loadProfiles();
    const trust = await decideTrust(url, values, data.profiles[name]);
    const agent = new DeviceAgent({ url, ...trust });
    try {
      let profile: Profile;
      if (values['token-stdin']) {
        const token = await readSecret('Token: ', 'token');
        agent.token = token;
        await agent.health(); // reachable, and the trust holds
        profile = { url, token, tokenId: null, tokenName: null, username: null, ...trust };
      } else {
        let user = values.user as string | undefined;
        if (!user) {
          if (!process.stdin.isTTY) throw new UsageError('--user NAME is required when standard input is not a terminal');
          user = (await ask('Username: ')).trim();
        }
        const password = await readSecret(`Password for ${user}: `, 'password');
        const session = await agent.login(user, password);
        const tname = tokenName();
        const created = await agent.createToken({ name: tname }).catch(async (err: unknown) => {
          if (!(err instanceof ApiError && err.status === 409)) throw err;
          const old = (await agent.tokens()).find((t) => t.name === tname && t.username === session.user.username);
          if (!old) throw err;
          await agent.revokeToken(old.id);
          return agent.createToken({ name: tname });
        });
        profile = { url, token: created.token, tokenId: created.id, tokenName: created.name, username: session.user.username, ...trust };
      }
      if (!profile.pin) delete profile.pin;
      if (!profile.ca) delete profile.ca;
      data.profiles[name] = profile;
      saveProfiles(data);
      ctx.io.note(
        `Logged in to ${url}${profile.username ? ` as ${profile.username}` : ''}; profile "${name}" saved in ${profilesPath()}` +
          (profile.pin ? ` (key pinned: ${profile.pin})` : ''),
      );
      return {
        json: {
          profile: name,
          url,
          username: profile.username,
          tokenId: profile.tokenId,
          tokenName: profile.tokenName,
          pin: profile.pin ?? null,
        },
      };
    } finally {
      agent.close();
    }
  },
};

const logout: Command = {
  name: 'logout',
  args: '',
  summary: "Revoke the profile's API token and forget the profile",
  description: 'A token without scope admin may not revoke itself: then the password is asked (as by login) to revoke it.',
  examples: ['dagent logout', 'dagent logout --profile gw-7'],
  positionals: { min: 0, max: 0 },
  single: true,
  async run(ctx, _args, values): Promise<Output> {
    const name = profileName(values.profile as string | undefined);
    const data = loadProfiles();
    const profile = data.profiles[name];
    if (!profile) throw new NoCredentialError(`no profile "${name}" (nothing to log out of)`);
    let revoked = false;
    if (profile.tokenId) {
      const agent = new DeviceAgent({ url: profile.url, token: profile.token, pin: profile.pin, ca: profile.ca });
      try {
        await agent.revokeToken(profile.tokenId).catch(async (err: unknown) => {
          // An API token without scope admin may not manage tokens, its own included: the
          // user's password opens a login session that may.
          if (!(err instanceof ApiError && err.status === 403 && profile.username)) throw err;
          await agent.login(profile.username, await readSecret(`Password for ${profile.username} (to revoke the token): `, 'password'));
          await agent.revokeToken(profile.tokenId!);
        });
        revoked = true;
      } catch (err) {
        // Already revoked or expired (401, 404): forgetting it is all that is left to do.
        if (!(err instanceof ApiError && (err.status === 401 || err.status === 404))) throw err;
      } finally {
        agent.close();
      }
    }
    delete data.profiles[name];
    saveProfiles(data);
    ctx.io.note(
      revoked
        ? `Logged out of ${profile.url}: token ${profile.tokenName} revoked, profile "${name}" removed`
        : `Profile "${name}" removed${profile.tokenId ? '' : ' (its token was given with --token-stdin: revoke it with dagent token revoke)'}`,
    );
    return { json: { profile: name, url: profile.url, revoked } };
  },
};

export const profileCommands: Command[] = [login, logout];
