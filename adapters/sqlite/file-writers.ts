/**
 * One writer at a time per database file within this process. Storages of one process on the same
 * file (hosts sharing a file, as tests run them, or an app opening two) would otherwise meet in
 * SQLite's lock: a group's BEGIN IMMEDIATE waits for the other's transaction synchronously, on the
 * main thread, and the other's transaction needs that very thread to go on (its units await
 * between statements; a long unit's statements come from it): neither could finish until the busy
 * timeout failed one ("database is locked"). Here the second waits for the first without holding
 * the thread. Other processes still meet in SQLite's lock, each waiting on its own thread.
 */
const holders = new Map<string, Promise<void>>();

/**
 * Runs `work` holding `file` (undefined: an in-memory database, nothing to hold). When no writer
 * of this process holds the file, `work` starts at once, in the same turn.
 */
export async function holding<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  const release = file === undefined ? undefined : (tryHoldFile(file) ?? (await holdFile(file)));
  try {
    return await work();
  } finally {
    release?.();
  }
}

/** Takes the file at once if no writer of this process holds it: the release, or undefined. */
function tryHoldFile(file: string): (() => void) | undefined {
  if (holders.has(file)) return undefined;
  let release!: () => void;
  holders.set(file, new Promise<void>((resolve) => (release = resolve)));
  return () => {
    holders.delete(file);
    release();
  };
}

/** Takes the file once the writers of this process before it have let it go. */
async function holdFile(file: string): Promise<() => void> {
  for (;;) {
    const release = tryHoldFile(file);
    if (release !== undefined) return release;
    await holders.get(file);
  }
}
