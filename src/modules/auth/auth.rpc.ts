import { Injectable } from '@nestjs/common';
import { RpcMethod, type RpcContext } from '../../common/rpc/rpc-method';
import { NonceService } from './nonce.service';
import { SessionService } from './session.service';
import { SignInService } from './sign-in.service';

/** Sign-in over the trading WebSocket: the same services as POST /v1/auth/* (params declared in packages/protocol/src/contract/methods-public.ts). */
@Injectable()
export class AuthRpc {
  constructor(
    private readonly nonces: NonceService,
    private readonly signIn: SignInService,
    private readonly sessions: SessionService,
  ) {}

  @RpcMethod('public/get_nonce')
  getNonce(params: { wallet: unknown }, context: RpcContext) {
    return this.nonces.issue(params.wallet, context.clientIp);
  }

  @RpcMethod('public/auth')
  async auth(params: { wallet: unknown; signature: unknown; message: unknown }, context: RpcContext) {
    const result = await this.signIn.signIn(params, context.clientIp);
    context.session.signIn(this.sessions.principalOf(result));
    return result;
  }

  @RpcMethod('public/session_resume')
  async sessionResume(params: { sessionToken: unknown }, context: RpcContext) {
    const result = await this.signIn.resume(params.sessionToken, context.clientIp);
    context.session.signIn(this.sessions.principalOf(result));
    return result;
  }
}
