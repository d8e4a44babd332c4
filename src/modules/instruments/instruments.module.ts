import { Module } from '@nestjs/common';
import { InstrumentRepository } from './instrument.repository';
import { InstrumentsRoutes } from './instruments.routes';
import { InstrumentsService } from './instruments.service';

/** Instruments and their expiration rounds (`instruments`, `expirations`: through InstrumentRepository only). */
@Module({ providers: [InstrumentRepository, InstrumentsService, InstrumentsRoutes], exports: [InstrumentsService] })
export class InstrumentsModule {}
