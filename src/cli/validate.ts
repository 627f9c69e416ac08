/**
 * `npm run validate -- [path/to/gateway.yaml]`: checks a config file without starting the gateway.
 * Exit 0 and `ok: <file>`, or exit 1 and one `file:line:col path message` line per problem.
 * Default file: $GATEWAY_CONFIG, else ./gateway.yaml. The pipeline's order rules are checked for
 * the built-in steps (a custom plugin's own rules need its module, loaded at start).
 */
import path from 'node:path';
import { loadConfigFile, locateInFile, type ConfigProblem } from '../config/load.ts';
import { formatProblem } from '../config/problems.ts';
import { orderProblems } from '../pipeline/order.ts';
import { builtinPlugins } from '../plugins/index.ts';

const file = process.argv[2] || process.env.GATEWAY_CONFIG || 'gateway.yaml';
const result = await loadConfigFile(file);
let problems: ConfigProblem[] = result.ok ? [] : result.problems;
if (result.ok) {
  const misplaced = orderProblems(result.config.pipeline, (entry) => (entry.module ? undefined : builtinPlugins.get(entry.name)));
  problems = await locateInFile(result.file, misplaced);
}
if (problems.length === 0) {
  console.log(`ok: ${path.relative(process.cwd(), result.file) || result.file}`);
} else {
  for (const p of problems) console.error(formatProblem(p));
  process.exitCode = 1;
}
