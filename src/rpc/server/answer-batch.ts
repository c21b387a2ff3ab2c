/**
 * The fast path's answers, written to their sockets together once per turn of the event loop.
 *
 * Writing an answer to a loopback or LAN socket costs more than the read that produced it when the
 * client is waiting asleep: the kernel wakes the client's thread inside our write call, and on a
 * virtual machine that wake-up is most of the write's cost. When the answers of one turn (every
 * connection that became readable together) are written back to back after the turn, only the first
 * write finds the client asleep; the others land while it is already reading (docs/adr/0028).
 *
 * The batch is flushed by setImmediate, which runs after the poll phase has handed out every ready
 * socket; a microtask or process.nextTick would run after each socket's callback and batch nothing.
 * An answer therefore waits for the rest of its turn: the other connections' callbacks, and any
 * setImmediate callback scheduled before the batch's (an on-demand dev block started in the same turn).
 */
import type { Socket } from 'node:net';

export class AnswerBatch {
  /** Sockets and the bytes to write to each, in the order the answers were made. */
  private readonly queue: { socket: Socket; data: string | Buffer }[] = [];
  /** Characters queued per socket (the unit node:net's writableLength counts strings in). */
  private readonly queued = new Map<Socket, number>();
  private scheduled = false;

  /** Queues `data` for `socket`; returns what is queued for that socket now, `data` included. */
  write(socket: Socket, data: string | Buffer): number {
    this.queue.push({ socket, data });
    const queued = (this.queued.get(socket) ?? 0) + data.length;
    this.queued.set(socket, queued);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
    }
    return queued;
  }

  /**
   * Writes everything queued now: before anything else may write to one of the sockets (node:http
   * taking a connection over, an end or a close), so that answers keep the order of their requests.
   */
  flush(): void {
    if (this.queue.length === 0) return;
    for (const { socket, data } of this.queue) if (!socket.destroyed) socket.write(data);
    this.queue.length = 0;
    this.queued.clear();
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.flush();
  };
}
