import { Injectable } from '@nestjs/common';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import { rfqCaller } from '../rfq/rfq.rpc';
import { MakerQuotesService } from './maker-quotes.service';
import { MakerDirectoryService } from './maker-directory.service';
import { MakerProfileRepository, type MakerProfilePatch } from './maker-profile.repository';
import { TranscriptService } from './transcript.service';

/** The methods of competitive RFQs (docs/spec/design.md 18) besides those they share with the seed RFQ. */
@Injectable()
export class CompetitionRpc {
  constructor(
    private readonly makerQuotes: MakerQuotesService,
    private readonly transcripts: TranscriptService,
    private readonly profiles: MakerProfileRepository,
    private readonly directory: MakerDirectoryService,
  ) {}

  @RpcMethod('rfq.maker.set_profile')
  setProfile(params: MakerProfilePatch, context: RpcContext) {
    return this.profiles.set(rfqCaller(context).accountId, params);
  }

  @RpcMethod('rfq.makers')
  makers() {
    return this.directory.makers();
  }

  @RpcMethod('rfq.maker.stats')
  stats(_params: Record<string, never>, context: RpcContext) {
    return this.directory.stats(rfqCaller(context).accountId);
  }

  @RpcMethod('rfq.maker.cancel_quote')
  cancelQuote(params: { quoteId: string }, context: RpcContext) {
    return this.makerQuotes.cancelQuote(rfqCaller(context), params.quoteId);
  }

  @RpcMethod('rfq.maker.cancel_quotes')
  cancelQuotes(_params: Record<string, never>, context: RpcContext) {
    return this.makerQuotes.cancelQuotes(rfqCaller(context));
  }

  @RpcMethod('rfq.transcript')
  transcript(params: { rfqId: string }, context: RpcContext) {
    return this.transcripts.get(rfqCaller(context), params.rfqId);
  }
}
