/**
 * The gateway's long-lived services, typed. Boot builds this one object at start, feature by
 * feature in the order of its table (src/boot/features.ts), and closes them in reverse order.
 *
 * Each layer or feature declares the services it reads or provides by augmenting this interface
 * in its own folder (TypeScript declaration merging), so a lower layer never names a feature:
 *
 * @example
 * declare module '../../pipeline/services.ts' {
 *   interface Services { logs?: LogService }
 * }
 *
 * A service a feature provides is optional here: the gateway runs without the feature (or with it
 * switched off), and its readers say what happens then.
 */
export interface Services {
  /** The components `/v1/system/health` probes (each feature adds its own). */
  readonly healthProbes: HealthProbe[];
}

export type ComponentStatus = 'operational' | 'degraded' | 'partial_outage' | 'major_outage' | 'maintenance';

/** A component the health check probes: returns its latency in ms, throws when down. */
export interface HealthProbe {
  name: 'database' | 'cache' | 'queue';
  check(): Promise<{ latency: number; status?: ComponentStatus; detail?: Record<string, unknown> }>;
}
