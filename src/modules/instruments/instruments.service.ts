import { Injectable } from '@nestjs/common';
import type { Instrument } from './instrument';

/**
 * STUB (to be implemented by the instruments work): owns instruments, the strike grid, pause and
 * resume, and the in-memory view every instance keeps in step with the database.
 */
@Injectable()
export class InstrumentsService {
  /** The in-memory view: the listed instrument, or undefined. Synchronous, no I/O. */
  get(symbol: string): Instrument | undefined {
    void symbol;
    return undefined;
  }
}
