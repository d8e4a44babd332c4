import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildAsyncApiDocument } from '../gateway/asyncapi/asyncapi-document';
import { RpcRegistry } from '../gateway/rpc-registry';
import { API_VERSION } from './openapi';

/**
 * The machine-readable descriptions of the API, generated from the code: OpenAPI from the
 * controllers (set once at start-up by createApp, which holds the application it scans), AsyncAPI
 * from the JSON-RPC method registry and the schema table.
 */
@Injectable()
export class ApiDocumentsService {
  private openapiDocument: OpenAPIObject | null = null;
  private asyncapiDocument: Record<string, unknown> | null = null;

  constructor(private readonly registry: RpcRegistry) {}

  setOpenApi(document: OpenAPIObject): void {
    this.openapiDocument = document;
  }

  openapi(): OpenAPIObject {
    if (!this.openapiDocument) throw new Error('the OpenAPI document is built by createApp at start-up');
    return this.openapiDocument;
  }

  asyncapi(): Record<string, unknown> {
    this.asyncapiDocument ??= buildAsyncApiDocument({ version: API_VERSION, served: this.registry.all() });
    return this.asyncapiDocument;
  }
}
