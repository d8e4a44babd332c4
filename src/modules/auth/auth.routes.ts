import type { RouteResult } from '@legwork/protocol';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { clientIp } from '../../common/http/client-ip';
import { HttpRoute, type RouteContext, type RouteInput } from '../../common/http/http-route';
import { NonceService } from './nonce.service';
import { SignInService } from './sign-in.service';

/** Sign-in over HTTP (`/v1/auth/*` of `PUBLIC_ROUTES`): the same services as public/get_nonce and public/auth, limited per client address. */
@Injectable()
export class AuthRoutes {
  constructor(
    private readonly nonces: NonceService,
    private readonly signIn: SignInService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @HttpRoute('auth.nonce')
  nonce({ body }: RouteInput<'auth.nonce'>, { request }: RouteContext<'auth.nonce'>): Promise<RouteResult<'auth.nonce'>> {
    return this.nonces.issue(body.wallet, this.ipOf(request));
  }

  @HttpRoute('auth.open-session')
  session({ body }: RouteInput<'auth.open-session'>, { request }: RouteContext<'auth.open-session'>): Promise<RouteResult<'auth.open-session'>> {
    return this.signIn.signIn(body, this.ipOf(request));
  }

  private ipOf(request: FastifyRequest): string {
    return clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy);
  }
}
