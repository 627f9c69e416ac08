/**
 * The configuration baked into the container image: the repository's sample gateway.yaml with
 * its demo account and demo key taken out. The demo key is public (README), so an image run
 * without a mounted config must not accept it; the master key (GATEWAY_MASTER_KEY) still works.
 *
 *   npx tsx scripts/container-config.ts gateway.yaml > container/gateway.yaml
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';

const [source = 'gateway.yaml'] = process.argv.slice(2);
const doc = parseDocument(await readFile(source, 'utf8'));
for (const section of ['accounts', 'keys']) {
  const empty = doc.createNode([]);
  empty.commentBefore = ` None in the image: mount your own gateway.yaml (read-only) over /etc/gateway/gateway.yaml.`;
  doc.set(section, empty);
}
doc.commentBefore = ` The container image's starting configuration (scripts/container-config.ts): the sample without its\n demo account and key. Mount your own gateway.yaml over it.\n${doc.commentBefore ?? ''}`;
process.stdout.write(doc.toString());
