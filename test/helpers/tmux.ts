// A real terminal for a test: a tmux server of the test's own (-L, so another tmux user on
// the machine cannot end it), one session, and waiting until the screen shows something.
import { execFileSync } from 'node:child_process';

export interface Terminal {
  tmux: (...args: string[]) => string;
  session: string;
  screen: () => string;
  /** Resolves with the screen once it matches; throws with the screen after `ms`. */
  until: (what: RegExp, ms?: number) => Promise<string>;
}

export function terminal(session: string, captureArgs: string[] = []): Terminal {
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', `da-test-${process.pid}`, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const screen = () => tmux('capture-pane', '-p', ...captureArgs, '-t', session);
  const until = async (what: RegExp, ms = 20_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const s = screen();
      if (what.test(s)) return s;
      if (Date.now() > end) throw new Error(`screen never showed ${what}:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { tmux, session, screen, until };
}
