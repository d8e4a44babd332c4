import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Ed25519Verifier } from '@legwork/protocol';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthAttemptsService } from './auth-attempts.service';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthRpc } from './auth.rpc';
import { NonceRepository } from './nonce.repository';
import { NonceService } from './nonce.service';
import { SessionService } from './session.service';
import { SignInService } from './sign-in.service';

@Module({
  imports: [AccountsModule],
  controllers: [AuthController],
  providers: [
    AuthRpc,
    AuthAttemptsService,
    NonceRepository,
    NonceService,
    SessionService,
    SignInService,
    { provide: Ed25519Verifier, useFactory: () => new Ed25519Verifier() },
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [NonceService, SessionService, SignInService, Ed25519Verifier],
})
export class AuthModule {}
