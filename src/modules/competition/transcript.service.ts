import { Injectable } from '@nestjs/common';
import type { RfqTranscript, SignedTranscript } from '@legwork/protocol';
import { RfqError } from '../../common/errors/app-error';
import { RfqLookupService } from '../rfq/rfq-lookup.service';
import type { RfqCaller } from '../rfq/rfq.service';
import { CompetitionRepository } from './competition.repository';

/** rfq.transcript (docs/spec/design.md 18): the signed transcript of an ended competition, to its taker only. */
@Injectable()
export class TranscriptService {
  constructor(
    private readonly quotes: CompetitionRepository,
    private readonly lookup: RfqLookupService,
  ) {}

  /** RFQ_NOT_FOUND for another account's RFQ, an unknown or a seed one, and while the competition runs (no transcript yet). */
  async get(taker: RfqCaller, rfqId: string): Promise<SignedTranscript> {
    const rfq = await this.lookup.findById(rfqId);
    const stored = rfq && rfq.accountId === taker.accountId && rfq.competition ? await this.quotes.transcript(rfqId) : null;
    if (!stored) throw new RfqError('RFQ_NOT_FOUND', `no transcript of RFQ ${rfqId} of this account`);
    return {
      transcript: JSON.parse(stored.payload.toString('utf8')) as RfqTranscript,
      payload: stored.payload.toString('base64'),
      hash: stored.hash,
      key_id: stored.keyId,
      signature: stored.signature,
    };
  }
}
