/**
 * `npm run docs:config`: writes docs/configuration-reference.md from schemas/gateway.schema.json
 * (src/config/reference.ts). CI fails when the committed page differs (reference.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import schema from '../schemas/gateway.schema.json' with { type: 'json' };
import { renderReference, type SchemaNode } from '../src/config/reference.ts';

const target = fileURLToPath(new URL('../docs/configuration-reference.md', import.meta.url));
writeFileSync(target, renderReference(schema as SchemaNode));
console.log(`wrote ${target}`);
