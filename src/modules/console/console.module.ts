import { Module } from '@nestjs/common';
import { ConsoleAdminController } from './console-admin.controller';
import { ConsoleReadsService } from './console-reads.service';
import { JsonRpcReferenceController } from './json-rpc-reference.controller';
import { DocsModule } from '../docs/docs.module';

/** The operator console's admin reads and the JSON-RPC reference page; the static console itself is served by createApp (serveConsole). */
@Module({ imports: [DocsModule], controllers: [ConsoleAdminController, JsonRpcReferenceController], providers: [ConsoleReadsService] })
export class ConsoleModule {}
