import { Module } from '@nestjs/common';
import { InstrumentRepository } from './instrument.repository';
import { InstrumentsController } from './instruments.controller';
import { InstrumentsService } from './instruments.service';

/** Instruments and their expiration rounds (`instruments`, `expirations`: through InstrumentRepository only). */
@Module({ controllers: [InstrumentsController], providers: [InstrumentRepository, InstrumentsService], exports: [InstrumentsService] })
export class InstrumentsModule {}
