/** vitest globalSetup of the e2e project: build dist/ (scripts/build.ts) before any test spawns it. */
import { buildGateway } from '../scripts/build.ts';

export default async function setup(): Promise<void> {
  await buildGateway();
}
