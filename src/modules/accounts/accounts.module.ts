import { Module } from '@nestjs/common';
import { AccountAccessService } from './account-access.service';
import { AccountRepository } from './account.repository';
import { AccountsService } from './accounts.service';

/** Accounts (the `accounts` table, through AccountRepository only) and the access cache of their roles and revocation. */
@Module({ providers: [AccountRepository, AccountAccessService, AccountsService], exports: [AccountAccessService, AccountsService] })
export class AccountsModule {}
