/** The shell's exit codes for the signals a user (Ctrl-C) or a supervisor stops a command with. */
const STOPS = [['SIGINT', 130], ['SIGTERM', 143]] as const;

/**
 * On Ctrl-C or a stop: `say` (which may clean up first) tells what the interruption left; its line
 * goes to stderr, on a line of its own with the cursor shown again on a terminal (a progress bar
 * hides it), and the process ends with the shell's code for the signal.
 */
export function onInterrupt(say: (signal: NodeJS.Signals) => string | Promise<string>): void {
  for (const [signal, code] of STOPS) {
    process.once(signal, () => {
      void Promise.resolve()
        .then(() => say(signal))
        .catch((error: unknown) => `interrupted (${signal}): ${(error as Error).message}`)
        .then((line) => {
          process.stderr.write(`${process.stderr.isTTY ? '\x1b[?25h\n' : ''}${line}\n`);
          process.exit(code);
        });
    });
  }
}
