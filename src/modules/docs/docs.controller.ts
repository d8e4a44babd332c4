import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/access/access';
import { ApiDocumentsService } from './api-documents.service';

/** The API descriptions. The interactive reference over /openapi.json is served at /docs (Swagger UI, see createApp). */
@ApiTags('operations')
@Controller()
export class DocsController {
  constructor(private readonly documents: ApiDocumentsService) {}

  @Get('openapi.json')
  @Public()
  @ApiOperation({ summary: 'This document: OpenAPI 3.1 description of every HTTP route' })
  @ApiOkResponse({ description: 'OpenAPI 3.1 document', schema: { type: 'object' } })
  openapi(): object {
    return this.documents.openapi();
  }

  @Get('asyncapi.json')
  @Public()
  @ApiOperation({ summary: 'AsyncAPI 3.0 description of the JSON-RPC methods and notifications of the trading WebSocket (/client)' })
  @ApiOkResponse({ description: 'AsyncAPI 3.0 document', schema: { type: 'object' } })
  asyncapi(): object {
    return this.documents.asyncapi();
  }
}
