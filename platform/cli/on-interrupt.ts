/** The shell's exit codes for the signals a user (Ctrl-C) or a supervisor stops a command with. */
export const STOPS = [['SIGINT', 130], ['SIGTERM', 143]] as const;

/**
 * One Ctrl-C in a terminal reaches the command two or three times at once: the terminal signals
 * its whole foreground group (npm, tsx and node), and npm and tsx each pass theirs on to their
 * child. Signals of one kind this close together are one press.
 */
const ONE_PRESS_MS = 500;

/**
 * Calls `press` once per Ctrl-C (or stop) however many copies of its signal arrive, with the
 * shell's exit code for it. The listeners stay: a copy arriving while the first press is handled
 * is not left to Node's default, which ended the process without a word.
 */
export function onInterruptPresses(press: (signal: NodeJS.Signals, code: number) => void): void {
  for (const [signal, code] of STOPS) {
    let last = -Infinity;
    process.on(signal, () => {
      const now = performance.now();
      const copy = now - last < ONE_PRESS_MS;
      last = now;
      if (!copy) press(signal, code);
    });
  }
}

/**
 * A command's failure line on stderr (`error: ` first, as every command's), on a line of its own
 * with the cursor shown again on a terminal (a progress bar hides it).
 */
export function writeFailureLine(line: string): void {
  process.stderr.write(`${process.stderr.isTTY ? '\x1b[?25h\n' : ''}error: ${line}\n`);
}

/**
 * Where a command's work goes once Ctrl-C stopped it: nowhere, for onInterrupt's handler says
 * how it ended and ends the process.
 */
export const leftToTheInterrupt = (): Promise<never> => new Promise(() => {});

/**
 * On Ctrl-C or a stop: `say` (which may clean up first) tells what the interruption left; its line
 * goes to stderr as a failure line (`error: ` first, as every command's), on a line of its own
 * with the cursor shown again on a terminal (a progress bar hides it), and the process ends with
 * the shell's code for the signal. Further presses meanwhile change nothing.
 */
export function onInterrupt(say: (signal: NodeJS.Signals) => string | Promise<string>): void {
  let saying = false;
  onInterruptPresses((signal, code) => {
    if (saying) return;
    saying = true;
    void Promise.resolve()
      .then(() => say(signal))
      .catch((error: unknown) => `interrupted (${signal}): ${(error as Error).message}`)
      .then((line) => {
        writeFailureLine(line);
        process.exit(code);
      });
  });
}

/**
 * Hands the signals over from the entry point's loading-time listeners to the command's own:
 * runs `install` (which adds the command's listeners) and only then removes the loader's.
 */
export type InterruptHandOver = <T>(install: () => T) => T;

/**
 * For an entry point to call before it loads its command (a second or two, several under tsx,
 * when a Ctrl-C right after the start is likeliest; a signal without a listener ends the process
 * without a word): until the command takes over with the returned hand-over, a Ctrl-C or a stop
 * ends the process with `line` on stderr (after `error: `, as onInterrupt's) and the shell's code
 * for the signal. The hand-over adds the command's listeners before it removes these: removing a
 * signal's last listener stops Node listening for it, and a signal that had arrived while the
 * process was busy, not yet handed to a listener, was dropped (a Ctrl-C then went unheard).
 */
export function exitOnInterruptWhileLoading(line: (signal: NodeJS.Signals) => string): InterruptHandOver {
  const listeners = STOPS.map(([signal, code]) => {
    const listener = () => {
      process.stderr.write(`error: ${line(signal)}\n`);
      process.exit(code);
    };
    process.once(signal, listener);
    return [signal, listener] as const;
  });
  return (install) => {
    const installed = install();
    for (const [signal, listener] of listeners) process.off(signal, listener);
    return installed;
  };
}
