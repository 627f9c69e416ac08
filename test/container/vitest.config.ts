/** `npm run test:container`: the image built and run with ../shared/tools/podman (test/container). */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'container',
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/container/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 2_400_000,
    fileParallelism: false,
  },
});
