import { type DynamicModule, Module } from '@nestjs/common';
import { Notifier } from './common/broadcast/notifier';
import type { AppConfig } from './common/config/config';
import { ConfigModule } from './common/config/config.module';
import { InfrastructureModule } from './common/infrastructure.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AuthModule } from './modules/auth/auth.module';
import { GatewayModule } from './modules/gateway/gateway.module';
import { HealthModule } from './modules/health/health.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), InfrastructureModule, AccountsModule, AuthModule, GatewayModule, HealthModule],
      providers: [Notifier],
    };
  }
}
