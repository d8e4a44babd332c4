import { Module } from '@nestjs/common';
import { AccountAccess } from './account-access.service';
import { AccountRepository } from './account.repository';
import { AccountsService } from './accounts.service';

/** Accounts (the `accounts` table, through AccountRepository only) and the access cache of their roles and revocation. */
@Module({ providers: [AccountRepository, AccountAccess, AccountsService], exports: [AccountAccess, AccountsService] })
export class AccountsModule {}
