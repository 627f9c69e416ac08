/** vitest globalSetup of the e2e project: build dist/ (scripts/build.ts) before any test spawns it. */
import { buildConsole, buildGateway } from '../scripts/build.ts';

export default async function setup(): Promise<void> {
  // The gateway serves the console from dist/console: the browser tests need it built.
  await Promise.all([buildGateway(), buildConsole()]);
}
