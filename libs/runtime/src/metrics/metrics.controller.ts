import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Response } from 'express';
import { MetricsRegistry } from './metrics-registry';

/** `GET /metrics`: Prometheus text format, no token (API.md). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsRegistry) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Res() response: Response): Promise<void> {
    const body = await this.metrics.render();
    response.setHeader('Content-Type', this.metrics.contentType);
    response.send(body);
  }
}
