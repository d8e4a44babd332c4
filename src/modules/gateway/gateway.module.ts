import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ClientGateway } from './client.gateway';
import { RpcDispatcher } from './rpc-dispatcher';
import { RpcRegistry } from './rpc-registry';

@Module({
  imports: [DiscoveryModule],
  providers: [RpcRegistry, RpcDispatcher, ClientGateway],
  exports: [RpcRegistry, ClientGateway],
})
export class GatewayModule {}
