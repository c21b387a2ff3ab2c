/**
 * Loading the node's modules takes a moment, and until a process has a listener for SIGINT/SIGTERM
 * the OS default kills it outright. The entry point installs this capture first, before importing
 * anything heavy; the command then takes over the signals and handles any that already arrived.
 */
const received: NodeJS.Signals[] = [];
const capture = (signal: NodeJS.Signals) => received.push(signal);
let installed = false;

export function captureEarlySignals(): void {
  if (installed) return;
  installed = true;
  process.on('SIGINT', capture);
  process.on('SIGTERM', capture);
}

/** Stops capturing and returns the signals that arrived meanwhile (the caller has its own handlers now). */
export function takeEarlySignals(): NodeJS.Signals[] {
  if (installed) {
    process.off('SIGINT', capture);
    process.off('SIGTERM', capture);
    installed = false;
  }
  return received.splice(0);
}
