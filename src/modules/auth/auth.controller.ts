import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { clientIp } from '../../common/http/client-ip';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { Public } from '../../common/access/access';
import { NonceChallengeDto, NonceRequestDto, SessionRequestDto, SignInResultDto } from './dto/sign-in.dto';
import { NonceService, type NonceChallenge } from './nonce.service';
import { SignInService, type SignInResult } from './sign-in.service';

@ApiTags('auth')
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
  @ApiOperation({
    summary: 'Get a sign-in nonce for a wallet',
    description: 'Valid 5 minutes, single use; at most 3 live per wallet (a fourth evicts the oldest).',
  })
  @ApiOkResponse({ type: NonceChallengeDto })
  @ApiTooManyRequestsResponse({ description: 'Over NONCE_RATE_PER_MINUTE (10) requests per minute from this client IP', type: ErrorResponse })
  nonce(@Body() body: NonceRequestDto, @Req() request: FastifyRequest): Promise<NonceChallenge> {
    return this.nonces.issue(body.wallet, this.ipOf(request));
  }

  private ipOf(request: FastifyRequest): string {
    return clientIp(request.headers['x-forwarded-for'], request.socket, this.config.trustProxy);
  }

  @Post('session')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    summary: 'Sign in over HTTP with the signed nonce message',
    description: 'Same body and result as public/auth. The nonce is consumed by the attempt, whatever its outcome.',
  })
  @ApiOkResponse({ type: SignInResultDto })
  @ApiUnauthorizedResponse({ description: 'Bad signature, or unknown, expired or used nonce', type: ErrorResponse })
  @ApiTooManyRequestsResponse({ description: 'Over AUTH_RATE_PER_MINUTE (30) sign-in attempts per minute from this client IP', type: ErrorResponse })
  session(@Body() body: SessionRequestDto, @Req() request: FastifyRequest): Promise<SignInResult> {
    return this.signIn.signIn(body, this.ipOf(request));
  }
}
