/**
 * A feature: one folder under src/features that boot installs at start (src/boot/features.ts).
 * Its `install` returns what it adds to the gateway: routes, inference endpoints, raw mounts,
 * services, and how to close. The HTTP shell mounts the routes; boot closes features in the
 * reverse of their install order.
 */
import type { H3 } from 'h3';
import type { Logger } from '../kernel/logger.ts';
import type { Gateway } from '../pipeline/gateway.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { HealthProbe, Services } from '../pipeline/services.ts';
import type { RouteDef } from './route.ts';

/** What every feature is installed with. */
export interface FeatureContext {
  readonly gateway: Gateway;
  readonly runtime: Runtime;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
}

/** An inference endpoint (POST, run through the pipeline), given the client's address. */
export interface InferenceEndpoint {
  path: string;
  handle(request: Request, ip: string): Promise<Response>;
}

export interface Installed {
  /** Routes behind the management door (credential, scope, IP allow-list, rate limit), JSON answers. */
  routes?: RouteDef[];
  /** Inference endpoints. */
  inference?: InferenceEndpoint[];
  /** Raw handlers on the app, mounted before the 404/405 fallback (OAuth, the console). */
  mount?(app: H3): void;
  /** Services this feature provides, merged into `runtime.services`. */
  services?: Partial<Omit<Services, 'healthProbes'>>;
  /** Components `/v1/system/health` probes for this feature. */
  healthProbes?: HealthProbe[];
  /** Releases what it holds; called at shutdown, after the features installed later. */
  close?(): Promise<void>;
}
