/**
 * Ordered start and reverse-ordered stop of the node's services. A service that fails to start stops
 * everything started before it; stopping is bounded in time so a stuck service cannot hang shutdown.
 */
import type { Logger } from '../util/logger.ts';
import { errorMessage } from '../util/errors.ts';

export interface Service {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export class Lifecycle {
  private readonly running: Service[] = [];
  private readonly logger: Logger;
  constructor(logger: Logger) {
    this.logger = logger;
  }

  /**
   * Starts one module now (`start` builds it and returns it) and registers `stop` for it, so that
   * modules are built in order, each from the ones before it. A failure stops everything started.
   */
  async open<T>(
    name: string,
    start: () => Promise<T>,
    stop: (module: T) => Promise<void> = async () => {},
  ): Promise<T> {
    let module: T;
    try {
      this.logger.debug({ service: name }, 'starting service');
      module = await start();
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.running.push({ name, start: async () => {}, stop: () => stop(module) });
    return module;
  }

  /** Stops in reverse order; returns false if `timeoutMs` passed before every service stopped. */
  async stop(timeoutMs = 10_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let clean = true;
    while (this.running.length > 0) {
      const s = this.running.pop()!;
      const left = Math.max(0, deadline - Date.now());
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), left)));
      try {
        const result = await Promise.race([s.stop().then(() => 'stopped' as const), timedOut]);
        if (result === 'timeout') {
          clean = false;
          this.logger.error({ service: s.name }, 'service did not stop in time');
        } else this.logger.debug({ service: s.name }, 'service stopped');
      } catch (err) {
        clean = false;
        this.logger.error({ service: s.name, err: errorMessage(err) }, 'service failed to stop');
      } finally {
        clearTimeout(timer);
      }
    }
    return clean;
  }
}
