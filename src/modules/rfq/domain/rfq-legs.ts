import type { PayloadLeg } from '@legwork/protocol';
import { RfqError, type RfqErrorReason } from '../../../common/errors/app-error';
import type { Instrument } from '../../instruments/instrument';
import type { RfqLeg } from './rfq-record';

/**
 * The legs array rules (docs/spec/interface.md 2.3, docs/spec/design.md sections 2 and 4) against the instrument
 * view: every instrument listed and tradable, unique by symbol and by terms, one asset and one
 * expiry. A failure is RFQ_INVALID_INSTRUMENT naming the first blocking leg by its index.
 * Lasting faults (unknown, settled, expired, duplicate, mixed) are reported before a paused leg,
 * so that `retryable: true` (paused) is only said when waiting can help.
 */

interface ResolvedLeg {
  instrument: Instrument;
  quantity: bigint;
}

export interface ResolvedLegs {
  asset: string;
  expiry: number;
  legs: ResolvedLeg[];
}

const invalid = (index: number, message: string, reason: RfqErrorReason<'RFQ_INVALID_INSTRUMENT'>) =>
  new RfqError('RFQ_INVALID_INSTRUMENT', `legs[${index}]: ${message}`, { reason });

function show(symbol: string): string {
  const text = JSON.stringify(symbol);
  return text.length > 48 ? `${text.slice(0, 48)}…` : text;
}

export function resolveLegs(legs: readonly RfqLeg[], lookup: (symbol: string) => Instrument | undefined, now: number): ResolvedLegs {
  const resolved: ResolvedLeg[] = [];
  const terms = new Map<string, number>();
  legs.forEach((leg, i) => {
    const instrument = lookup(leg.instrument);
    if (!instrument) throw invalid(i, `${show(leg.instrument)} is not a listed instrument`, 'instrument_unknown');
    if (instrument.settled) throw invalid(i, `${leg.instrument} has settled`, 'instrument_settled');
    if (instrument.expiry <= now) throw invalid(i, `${leg.instrument} has expired`, 'instrument_expired');
    const same = resolved.findIndex((r) => r.instrument.symbol === instrument.symbol);
    if (same >= 0) throw invalid(i, `${leg.instrument} repeats legs[${same}]`, 'leg_duplicate');
    const key = `${instrument.asset}/${instrument.strike}/${instrument.expiry}/${instrument.kind}`;
    const twin = terms.get(key);
    if (twin !== undefined) throw invalid(i, `${leg.instrument} has the same terms as legs[${twin}]`, 'leg_duplicate');
    terms.set(key, i);
    if (i > 0) {
      const first = resolved[0].instrument;
      if (instrument.asset !== first.asset) throw invalid(i, `${leg.instrument} is not of the asset of legs[0] (${first.asset})`, 'legs_mixed');
      if (instrument.expiry !== first.expiry) throw invalid(i, `${leg.instrument} does not share the expiry of legs[0]`, 'legs_mixed');
    }
    resolved.push({ instrument, quantity: leg.quantity });
  });
  const paused = resolved.findIndex((r) => r.instrument.paused);
  if (paused >= 0) {
    throw new RfqError('RFQ_INVALID_INSTRUMENT', `legs[${paused}]: ${resolved[paused].instrument.symbol} is paused; try again when its round resumes`, {
      pausedLeg: true,
      reason: 'instrument_paused',
    });
  }
  return { asset: resolved[0].instrument.asset, expiry: resolved[0].instrument.expiry, legs: resolved };
}

/** The leg slots of the quote payload, in the taker's order. */
export function payloadLegs(resolved: ResolvedLegs): PayloadLeg[] {
  return resolved.legs.map(({ instrument, quantity }) => ({ symbol: instrument.symbol, strike: instrument.strike, kind: instrument.kind, quantity }));
}
