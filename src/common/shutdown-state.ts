/**
 * Whether this instance is draining (SIGTERM, docs/spec/design.md section 11): the gateway sets it when the
 * shutdown begins, and the readiness check answers 503 from then on so a load balancer sends no
 * new client here while the calls in flight are answered.
 */
export class ShutdownState {
  private drainingSince: number | null = null;

  begin(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }
}
