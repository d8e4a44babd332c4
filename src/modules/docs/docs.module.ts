import { Module } from '@nestjs/common';
import { GatewayModule } from '../gateway/gateway.module';
import { ApiDocumentsService } from './api-documents.service';
import { DocsController } from './docs.controller';

/** GET /openapi.json and /asyncapi.json (and, set up by createApp, the reference page at /docs). */
@Module({ imports: [GatewayModule], controllers: [DocsController], providers: [ApiDocumentsService], exports: [ApiDocumentsService] })
export class DocsModule {}
