import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import { RpcMethod, type RpcContext } from '../gateway/rpc-method';
import { NonceService } from './nonce.service';
import { SessionService } from './session.service';
import { SignInService } from './sign-in.service';

function onlyKeys(params: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(params).find((k) => !allowed.includes(k));
  if (extra) throw new AppError('INVALID_PARAMS', `unknown param ${extra}`);
}

/** Sign-in over the trading WebSocket: the same services as POST /v1/auth/*. */
@Injectable()
export class AuthRpc {
  constructor(
    private readonly nonces: NonceService,
    private readonly signIn: SignInService,
    private readonly sessions: SessionService,
  ) {}

  @RpcMethod('public/get_nonce', { kind: 'public' })
  getNonce(params: Record<string, unknown>, context: RpcContext) {
    onlyKeys(params, ['wallet']);
    return this.nonces.issue(params.wallet, context.clientIp);
  }

  @RpcMethod('public/auth', { kind: 'public' })
  async auth(params: Record<string, unknown>, context: RpcContext) {
    onlyKeys(params, ['wallet', 'signature', 'message']);
    const result = await this.signIn.signIn(params, context.clientIp);
    context.session.signIn(this.sessions.principalOf(result));
    return result;
  }

  @RpcMethod('public/session_resume', { kind: 'public' })
  async sessionResume(params: Record<string, unknown>, context: RpcContext) {
    onlyKeys(params, ['session_token']);
    const result = await this.signIn.resume(params.session_token, context.clientIp);
    context.session.signIn(this.sessions.principalOf(result));
    return result;
  }
}
