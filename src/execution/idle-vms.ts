/**
 * Built VMs waiting for their next user, per shared Common, at most `max` of them. A VM whose run
 * threw (`tainted`) is never kept: an aborted run may leave EVM-side state behind.
 */
import type { Common } from '@ethereumjs/common';

export class IdleVms<T extends { tainted: boolean }> {
  private readonly idle = new WeakMap<Common, T[]>();
  private readonly max: number;
  private readonly build: (common: Common) => Promise<T>;

  constructor(max: number, build: (common: Common) => Promise<T>) {
    this.max = max;
    this.build = build;
  }

  /** An idle VM of `common`, or a new one. */
  async take(common: Common): Promise<T> {
    return this.idle.get(common)?.pop() ?? (await this.build(common));
  }

  /** Keeps `vm` for the next user of `common` unless it is tainted or enough are kept. */
  give(common: Common, vm: T): void {
    if (vm.tainted) return;
    let list = this.idle.get(common);
    if (!list) this.idle.set(common, (list = []));
    if (list.length < this.max) list.push(vm);
  }
}
