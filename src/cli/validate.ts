/**
 * `npm run validate -- [path/to/gateway.yaml]`: checks a config file without starting the gateway.
 * Exit 0 and `ok: <file>`, or exit 1 and one `file:line:col path message` line per problem.
 * Default file: $GATEWAY_CONFIG, else ./gateway.yaml. `pipeline:` is checked as startup checks it:
 * custom plugin modules are loaded (paths relative to the file), then the order rules and every
 * entry's options; no plugin is set up.
 */
import path from 'node:path';
import { loadConfigFile, locateInFile, type ConfigProblem } from '../config/load.ts';
import { formatProblem } from '../config/problems.ts';
import { preparePipeline } from '../pipeline/prepare.ts';
import { builtinPlugins } from '../plugins/index.ts';

const file = process.argv[2] || process.env.GATEWAY_CONFIG || 'gateway.yaml';
const result = await loadConfigFile(file);
let problems: ConfigProblem[] = result.ok ? [] : result.problems;
if (result.ok) {
  const pipeline = await preparePipeline(result.config.pipeline, result.file, builtinPlugins);
  if (!pipeline.ok) problems = await locateInFile(result.file, pipeline.problems);
}
// A config of a newer version than this gateway's: what it would ignore (src/config/version.ts).
for (const warning of (result.ok && result.warnings) || []) console.error(`warning: ${formatProblem(warning)}`);
if (problems.length === 0) {
  console.log(`ok: ${path.relative(process.cwd(), result.file) || result.file}`);
} else {
  for (const p of problems) console.error(formatProblem(p));
  process.exitCode = 1;
}
