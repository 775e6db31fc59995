// Reading a password for the CLI: one line from a pipe, or typed twice without echo.
import { readFileSync } from 'node:fs';

export const MIN_PASSWORD_LENGTH = 8;

/** The first line of standard input, without its line ending. */
function fromPipe(): string {
  const text = readFileSync(0, 'utf8');
  const nl = text.indexOf('\n');
  return (nl === -1 ? text : text.slice(0, nl)).replace(/\r$/, '');
}

function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Returns the new password, or throws with a message for the user. */
export async function readNewPassword(): Promise<string> {
  let password: string;
  if (!process.stdin.isTTY) {
    password = fromPipe();
  } else {
    password = await promptHidden('New password: ');
    const again = await promptHidden('Repeat password: ');
    if (again !== password) throw new Error('passwords do not match');
  }
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new Error(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  return password;
}
