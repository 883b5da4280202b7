/** Time is a port: the core reads the clock once per operation and passes `now` down. */
export interface Clock {
  now(): Date;
  /** `now()` in epoch ms without making a Date, for work done on every request (metering). Optional. */
  nowMs?(): number;
}

export const systemClock: Clock = { now: () => new Date(), nowMs: () => Date.now() };

/** The clock's time in epoch ms: its `nowMs` when it has one, else `now()`'s. */
export function epochMs(clock: Clock): number {
  return clock.nowMs !== undefined ? clock.nowMs() : clock.now().getTime();
}

/** A clock that moves only when told to: for tests, simulations and benchmarks. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string | number = "2026-01-01T00:00:00.000Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  nowMs(): number {
    return this.current;
  }

  set(to: Date | string | number): void {
    this.current = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
