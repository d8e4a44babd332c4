import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { clientIp } from '../../common/http/client-ip';
import { Public } from './access';
import { NonceRequestDto, SessionRequestDto } from './dto/sign-in.dto';
import { NonceService, type NonceChallenge } from './nonce.service';
import { SignInService, type SignInResult } from './sign-in.service';

@Controller('v1/auth')
export class AuthController {
  constructor(
    private readonly nonces: NonceService,
    private readonly signIn: SignInService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('nonce')
  @HttpCode(200)
  @Public()
  nonce(@Body() body: NonceRequestDto, @Req() request: FastifyRequest): Promise<NonceChallenge> {
    return this.nonces.issue(body.wallet, clientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress, this.config.trustProxy));
  }

  @Post('session')
  @HttpCode(200)
  @Public()
  session(@Body() body: SessionRequestDto): Promise<SignInResult> {
    return this.signIn.signIn(body);
  }
}
