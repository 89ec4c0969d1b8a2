import { Injectable } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';
import type { Role } from '../config/roles';

/**
 * The process's Prometheus registry, served at `GET /metrics` (no token).
 * One per process (standalone's roles share it), so a metric is registered once
 * whatever number of roles asks for it: `counter`/`gauge`/`histogram` return the
 * existing metric when the name is already registered.
 *
 * Every metric carries the `role` label of the process (default label).
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor(role: Role) {
    this.registry.setDefaultLabels({ role });
    collectDefaultMetrics({ register: this.registry, prefix: 'lanner_' });
  }

  counter<L extends string>(configuration: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return (
      (this.registry.getSingleMetric(configuration.name) as Counter<L> | undefined) ??
      new Counter({ ...configuration, registers: [this.registry] })
    );
  }

  gauge<L extends string>(configuration: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return (
      (this.registry.getSingleMetric(configuration.name) as Gauge<L> | undefined) ??
      new Gauge({ ...configuration, registers: [this.registry] })
    );
  }

  histogram<L extends string>(configuration: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return (
      (this.registry.getSingleMetric(configuration.name) as Histogram<L> | undefined) ??
      new Histogram({ ...configuration, registers: [this.registry] })
    );
  }

  /** The text exposition format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
