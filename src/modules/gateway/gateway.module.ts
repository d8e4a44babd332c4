import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { ClientGateway } from './client.gateway';
import { GatewayConnections } from './gateway-connections';
import { RfqAdmission } from './rfq-admission';
import { RpcDispatcher } from './rpc-dispatcher';
import { RpcRegistry } from './rpc-registry';

@Module({
  imports: [DiscoveryModule, AccountsModule],
  providers: [RpcRegistry, RfqAdmission, RpcDispatcher, GatewayConnections, ClientGateway],
  exports: [RpcRegistry, ClientGateway],
})
export class GatewayModule {}
