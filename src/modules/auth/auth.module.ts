import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Ed25519Verifier } from '@legwork/protocol';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthAttemptsService } from './auth-attempts.service';
import { AuthGuard } from './auth.guard';
import { AuthRoutes } from './auth.routes';
import { AuthRpc } from './auth.rpc';
import { NonceRepository } from './nonce.repository';
import { NonceService } from './nonce.service';
import { SessionService } from './session.service';
import { SignInService } from './sign-in.service';

@Module({
  imports: [AccountsModule],
  providers: [
    AuthRoutes,
    AuthRpc,
    AuthAttemptsService,
    NonceRepository,
    NonceService,
    SessionService,
    SignInService,
    { provide: Ed25519Verifier, useFactory: () => new Ed25519Verifier() },
    AuthGuard,
    { provide: APP_GUARD, useExisting: AuthGuard },
  ],
  exports: [AuthGuard, NonceService, SessionService, SignInService, Ed25519Verifier],
})
export class AuthModule {}
