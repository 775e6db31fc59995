// Questions to the person at the terminal (on standard error), or lines of standard input
// when it is not a terminal: the password or token, never an answer to a question.
import type { Interface } from 'node:readline';
import { readline } from '../builtins.ts';

let rl: Interface | undefined;
let lines: AsyncIterator<string> | undefined;

/** The next line of standard input (a pipe or file), or null at its end. */
export async function stdinLine(): Promise<string | null> {
  if (!lines) {
    rl = readline().createInterface({ input: process.stdin, crlfDelay: Infinity });
    lines = rl[Symbol.asyncIterator]();
  }
  const r = await lines.next();
  return r.done ? null : r.value;
}

/** Lets the process end: the line reader holds standard input open. */
export function closeInput(): void {
  rl?.close();
}

/** A visible question on the terminal. */
export function ask(question: string): Promise<string> {
  const q = readline().createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise((resolve) =>
    q.question(question, (answer) => {
      q.close();
      resolve(answer);
    }),
  );
}

/** A question on the terminal whose answer is not echoed (a password). */
export function askHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
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
        if (ch === '\u0003' || ch === '\u0004') return done(Object.assign(new Error('cancelled'), { cancelled: true }));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * A yes/no question on the terminal; no answer is no. Never asked of a pipe: its lines are
 * the secrets that follow, and an answer read there is neither a person's nor echoed.
 */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const answer = await ask(`${question} [y/N] `);
  return /^\s*y(es)?\s*$/i.test(answer);
}
