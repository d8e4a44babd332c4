import { Module } from '@nestjs/common';
import { AccountAccess } from './account-access.service';
import { AccountsService } from './accounts.service';

@Module({ providers: [AccountAccess, AccountsService], exports: [AccountAccess, AccountsService] })
export class AccountsModule {}
