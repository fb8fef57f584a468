/**
 * Regenerates test/fixtures/slappasswd.json: hashes written by OpenLDAP's slappasswd for every
 * scheme leveldap implements. Run: npm run build && node dist/scripts/make-slappasswd-fixtures.js
 */
import { writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { slappasswdHashes } from '../test/helpers/slappasswd.js';
import { fixturePath } from '../test/helpers/paths.js';

// biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
const version = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'slapd'], { encoding: 'utf8' });
const hashes = await slappasswdHashes();
const fixture = { generatedBy: `slappasswd from Debian slapd ${version}`, hashes };
await writeFile(fixturePath('slappasswd.json'), `${JSON.stringify(fixture, null, 2)}\n`);
process.stdout.write(`wrote ${hashes.length} hashes to test/fixtures/slappasswd.json\n`);
