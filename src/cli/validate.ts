/**
 * `npm run validate -- [path/to/gateway.yaml]`: checks a config file without starting the gateway.
 * Exit 0 and `ok: <file>`, or exit 1 and one `file:line:col path message` line per problem.
 * Default file: $GATEWAY_CONFIG, else ./gateway.yaml.
 */
import path from 'node:path';
import { loadConfigFile } from '../config/load.ts';
import { formatProblem } from '../config/problems.ts';

const file = process.argv[2] || process.env.GATEWAY_CONFIG || 'gateway.yaml';
const result = await loadConfigFile(file);
if (result.ok) {
  console.log(`ok: ${path.relative(process.cwd(), result.file) || result.file}`);
} else {
  for (const p of result.problems) console.error(formatProblem(p));
  process.exitCode = 1;
}
