/** The time source of services (domain code takes the time as a parameter instead). */
export class Clock {
  nowMs(): number {
    return Date.now();
  }
  /** Unix seconds. */
  now(): number {
    return Math.floor(Date.now() / 1000);
  }
}
