import { type Instrument, type InstrumentFilter, type InstrumentRecord, compareInstruments, instrumentRecord } from './instrument';

/** One asset's instruments in listing order: all, and the open (unsettled) ones. */
interface Shelf {
  all: Instrument[];
  open: Instrument[];
}

/**
 * The instrument view sorted once and indexed for the listings of GET /v1/instruments and
 * public/get_instruments (docs/spec/design.md section 16): every asset's list and every
 * expiration's, so that a call finds its list instead of scanning every instrument ever listed.
 * Made when a listing is asked for after the view changed; immutable after.
 */
export class InstrumentListing {
  private readonly everything: Shelf = { all: [], open: [] };
  private readonly byAsset = new Map<string, Shelf>();
  private readonly byExpiry = new Map<number, Instrument[]>();
  /** The wire records of a shared list, made on its first listing. */
  private readonly recordLists = new WeakMap<readonly Instrument[], readonly InstrumentRecord[]>();
  private readonly recordOf = new WeakMap<Instrument, InstrumentRecord>();

  constructor(view: Iterable<Instrument>) {
    const sorted = [...view].sort(compareInstruments);
    for (const i of sorted) {
      let shelf = this.byAsset.get(i.asset);
      if (!shelf) this.byAsset.set(i.asset, (shelf = { all: [], open: [] }));
      let round = this.byExpiry.get(i.expiry);
      if (!round) this.byExpiry.set(i.expiry, (round = []));
      round.push(i);
      shelf.all.push(i);
      this.everything.all.push(i);
      if (!i.settled) {
        shelf.open.push(i);
        this.everything.open.push(i);
      }
    }
  }

  /**
   * The instruments the filter asks for, in listing order. Without an expiry the answer is a list
   * made in the constructor (the same array every call); with one, the expiration's instruments
   * filtered (an expiration holds one round per asset, whatever the exchange's age).
   */
  list(filter: InstrumentFilter): readonly Instrument[] {
    if (filter.expiry !== undefined) {
      const round = this.byExpiry.get(filter.expiry) ?? [];
      return round.filter((i) => (filter.asset === undefined || i.asset === filter.asset) && (filter.includeSettled || !i.settled));
    }
    const shelf = filter.asset === undefined ? this.everything : this.byAsset.get(filter.asset);
    if (!shelf) return [];
    return filter.includeSettled ? shelf.all : shelf.open;
  }

  records(filter: InstrumentFilter): readonly InstrumentRecord[] {
    const list = this.list(filter);
    let records = this.recordLists.get(list);
    if (!records) {
      records = list.map((i) => this.record(i));
      if (filter.expiry === undefined) this.recordLists.set(list, records);
    }
    return records;
  }

  record(instrument: Instrument): InstrumentRecord {
    let record = this.recordOf.get(instrument);
    if (!record) this.recordOf.set(instrument, (record = Object.freeze(instrumentRecord(instrument))));
    return record;
  }
}
