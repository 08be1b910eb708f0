import { assignOptions, is, option, type OptionSchema } from '../util/options.js';
import type { Operation } from './Operation.js';

export interface BatchConfig {
  /**
   * Stop starting operations after the first failure (the rest stay pending). Default false. A
   * failure of kind 'network' or 'timeout' (retries spent) stops the batch whatever this says.
   */
  pauseOnException?: boolean;
  /** Operations in flight at once within one action type. Default 4. */
  concurrency?: number;
}

const schema: OptionSchema = {
  pauseOnException: option(is.boolean, () => false),
  concurrency: option(is.positiveInteger, () => 4),
};

/**
 * A group of operations run together, as `proxy.batch()` and `store.sync()` make them: the
 * action types one after the other (in `batchOrder`), the operations of one type up to
 * `concurrency` at once.
 */
export class Batch {
  /** {@inheritDoc BatchConfig.pauseOnException} */
  declare pauseOnException: boolean;
  /** {@inheritDoc BatchConfig.concurrency} */
  declare concurrency: number;
  /** Every operation, in run order. */
  readonly operations: Operation[] = [];
  /** The operations that failed, in the order they failed. */
  readonly exceptions: Operation[] = [];
  /** True once every operation has run (false while running, and when paused by a failure). */
  isComplete = false;
  /**
   * True when the batch stopped before every operation had run: a failure with `pauseOnException`,
   * or one of kind 'network' or 'timeout' (the server is unreachable).
   */
  isPaused = false;
  /** The operations not sent because the batch stopped, in run order (their records stay pending). */
  readonly unsent: Operation[] = [];

  constructor(config: BatchConfig = {}) {
    assignOptions(this, 'Batch', schema, config);
  }

  hasException(): boolean {
    return this.exceptions.length > 0;
  }

  /**
   * Run groups of operations: each group after the previous one has finished, the operations of
   * a group `concurrency` at a time. `execute` must settle (it is never expected to throw).
   */
  async run(groups: Operation[][], execute: (operation: Operation) => Promise<unknown>): Promise<this> {
    this.operations.push(...groups.flat());
    for (const [at, group] of groups.entries()) {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < group.length && !this.isPaused) {
          const operation = group[next++];
          if (operation === undefined) break;
          try {
            await execute(operation);
          } catch {
            // The outcome is on the operation; a throw must not stop the other workers.
          }
          if (operation.hasException() || !operation.complete) {
            this.exceptions.push(operation);
            const kind = operation.error?.kind;
            if (this.pauseOnException || kind === 'network' || kind === 'timeout') this.isPaused = true;
          }
        }
      };
      const workers = Array.from({ length: Math.min(this.concurrency, group.length) }, worker);
      await Promise.all(workers);
      if (this.isPaused) {
        this.unsent.push(...group.slice(next), ...groups.slice(at + 1).flat());
        return this;
      }
    }
    this.isComplete = true;
    return this;
  }
}

