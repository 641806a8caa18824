/** A server started by a command: stopped on SIGTERM or SIGINT. */
export interface StoppableServer {
  stop(): Promise<void>;
}

/** What {@link runServerCommand} runs: a server binary's flags, help and start. */
export interface ServerCommand<O extends { help?: boolean }> {
  /** The prefix of its log lines, e.g. `kube-apiserver-lite`. */
  name: string;
  /** Parses the flags; throws on a bad one. */
  parseOptions(argv: string[]): O;
  helpText(): string;
  /** Starts the server and logs where it serves. */
  start(options: O, log: (message: string) => void): Promise<StoppableServer>;
  /** Log `<signal>: shutting down gracefully` when a signal arrives (default false). */
  logShutdown?: boolean;
}

/**
 * Runs a server binary: a bad flag prints the error and the help and exits 2, `--help` prints the help,
 * otherwise the server starts and the first SIGTERM or SIGINT stops it gracefully (exit 0, or 1 when
 * stopping fails); a failure to start exits 1 with `[name] fatal: ...`.
 */
export function runServerCommand<O extends { help?: boolean }>(command: ServerCommand<O>, argv: string[] = process.argv.slice(2)): void {
  const log = (message: string) => console.log(`[${command.name}] ${message}`);
  let options: O;
  try {
    options = command.parseOptions(argv);
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${command.helpText()}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(command.helpText());
    return;
  }
  command
    .start(options, log)
    .then((running) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        if (command.logShutdown) log(`${signal}: shutting down gracefully`);
        running
          .stop()
          .then(() => process.exit(0))
          .catch((error: unknown) => {
            console.error(error);
            process.exit(1);
          });
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    })
    .catch((error: unknown) => {
      console.error(`[${command.name}] fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    });
}
