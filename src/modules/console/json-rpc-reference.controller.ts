import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/access/access';
import { ApiDocumentsService } from '../docs/api-documents.service';
import { JSON_RPC_REFERENCE_CSS, renderJsonRpcReference } from './json-rpc-reference';

/** A page of its own, no script: only its stylesheet (docs/spec/design.md section 10's CSP, with style-src 'self'). */
const PAGE_CSP = "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** GET /docs/json-rpc: the trading API (JSON-RPC over /client) as a page, rendered from /asyncapi.json. */
@ApiTags('operations')
@Controller('docs')
export class JsonRpcReferenceController {
  private page: string | null = null;

  constructor(private readonly documents: ApiDocumentsService) {}

  @Get('json-rpc')
  @Public()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', PAGE_CSP)
  @ApiProduces('text/html')
  @ApiOperation({ summary: 'The JSON-RPC reference: every method (params, result, errors, an example exchange) and every notification, from /asyncapi.json' })
  @ApiOkResponse({ description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } })
  reference(): string {
    // The document is fixed for the life of the process: render once.
    this.page ??= renderJsonRpcReference(this.documents.asyncapi());
    return this.page;
  }

  @Get('json-rpc.css')
  @Public()
  @Header('content-type', 'text/css; charset=utf-8')
  @Header('content-security-policy', PAGE_CSP)
  @ApiProduces('text/css')
  @ApiOperation({ summary: 'The stylesheet of the JSON-RPC reference page' })
  @ApiOkResponse({ description: 'CSS', content: { 'text/css': { schema: { type: 'string' } } } })
  stylesheet(): string {
    return JSON_RPC_REFERENCE_CSS;
  }
}
