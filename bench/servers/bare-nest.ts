import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * Experiment server (bench/experiments/raw-route.ts): the floor of the framework. A Nest
 * application on Fastify with one controller route, GET /query/rfq-positions, returning the body
 * set over IPC (`{ type: 'canned', body }`): no guard, pipe, filter, hook, logging or metrics.
 */
let body: unknown = { rows: [] };

@Controller('query')
class FloorController {
  @Get('rfq-positions')
  positions(): unknown {
    return body;
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(FloorModule, new FastifyAdapter({ logger: false, skipMiddie: true }), { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  process.on('message', (m: { type: string; body?: unknown }) => {
    if (m.type === 'canned') body = m.body;
    process.send?.({ type: m.type });
  });
  process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
  process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
}

void main();
