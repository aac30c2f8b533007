/**
 * Tasks run off a caller's path: on the next turn of the event loop, before the next delivery
 * round. The middleware defers mapping and validation out of a bot's turn with them. A task that
 * throws is handed to `onError`, never rethrown.
 */
export class DeferredTasks {
  private tasks: (() => void)[] = [];
  private scheduled = false;

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Tasks waiting to run. */
  get length(): number {
    return this.tasks.length;
  }

  /** Runs `task` soon (see the file's header). */
  push(task: () => void): void {
    this.tasks.push(task);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.run());
    }
  }

  /** Runs every waiting task now, in order (`flush()` and `close()` do, before they wait). */
  run(): void {
    this.scheduled = false;
    const tasks = this.tasks;
    this.tasks = [];
    for (const task of tasks) {
      try {
        task();
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
