// Reading a password for the CLI: one line from a pipe, or typed twice without echo.

export const MIN_PASSWORD_LENGTH = 8;

/**
 * The first line of standard input, without its line ending, waiting for it: a pipe (ssh,
 * Ansible, `(sleep 1; echo PW) |`) may bring it late. Read through process.stdin, never
 * readFileSync(0): once process.stdin exists libuv has made the pipe non-blocking, and a
 * synchronous read of an empty pipe then fails with EAGAIN instead of waiting.
 */
function fromPipe(): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    let text = '';
    const finish = (err?: Error) => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.removeListener('error', finish);
      // Paused, standard input holds the process no longer; the rest of the pipe is not ours.
      stdin.pause();
      if (err) return reject(err);
      const nl = text.indexOf('\n');
      resolve((nl === -1 ? text : text.slice(0, nl)).replace(/\r$/, ''));
    };
    const onData = (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) finish();
    };
    const onEnd = () => finish();
    stdin.setEncoding('utf8');
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', finish);
  });
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
    password = await fromPipe();
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
