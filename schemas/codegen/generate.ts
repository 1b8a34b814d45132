import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listSchemaFiles, schemasRoot } from '../files.js';
import { renderTypes } from './typescript.js';
import { helpPointer } from '../../platform/cli/parse-errors.js';
import { readVersions, renderVersions, unreadableByPrevious, unreadableVersions, unrecordedSchemas, versionsPath, withCurrentVersions } from './versions.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';

/**
 * `generate` writes schemas/generated/events.ts and records each changed schema as a new version
 * of its type in schemas/versions.json; `check` exits 1 when either is stale. Both exit 1 when a
 * schema cannot read events written with an earlier version of its type, naming it and why, and
 * when a recorded type's file was removed.
 */
const generatedPath = join(schemasRoot, 'generated', 'events.ts');

export function isGeneratedCurrent(): boolean {
  try {
    return readFileSync(generatedPath, 'utf8') === renderTypes(listSchemaFiles());
  } catch {
    return false;
  }
}

/** Says each schema that cannot read an earlier version of its type; true when there is none. */
function compatible(files: ReturnType<typeof listSchemaFiles>, versions: ReturnType<typeof readVersions>): boolean {
  const problems = unreadableVersions(files, versions);
  for (const problem of problems) process.stderr.write(`error: ${problem}\n`);
  if (problems.length > 0) {
    process.stderr.write('events of every earlier version stay in the log and must still decode: give an added field a default, keep a field\'s type (or change it only to one Avro promotes it to), and keep the file of a type no longer written\n');
  }
  return problems.length === 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  reportUnexpectedFailures();
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(
      'usage: npm run schemas:generate | npm run schemas:check\ngenerate writes schemas/generated/events.ts (TypeScript types of the Avro schemas in schemas/) and records a changed schema as a new version of its type in schemas/versions.json; check exits 1 when either is stale. Both exit 1 when a schema cannot read events written with an earlier version of its type, or a type recorded there has no file any more, and warn when the version before cannot read events of the current one.\n',
    );
    process.exit(0);
  }
  const [mode = 'generate', ...rest] = process.argv.slice(2);
  // Anything else is a mistake, and taking it for `generate` would write the files a check was meant to leave.
  if ((mode !== 'generate' && mode !== 'check') || rest.length > 0) {
    const given = mode !== 'generate' && mode !== 'check' ? mode : rest[0];
    process.stderr.write(`error: unknown argument ${JSON.stringify(given)}: npm run schemas:generate and npm run schemas:check take none\n${helpPointer('npm run schemas:generate --')}\n`);
    process.exit(2);
  }
  const files = listSchemaFiles();
  const versions = readVersions();
  if (!compatible(files, versions)) process.exit(1);
  for (const warning of unreadableByPrevious(files, versions)) process.stderr.write(`${warning}\n`);
  if (mode === 'check') {
    let current = true;
    if (!isGeneratedCurrent()) {
      process.stderr.write('error: schemas/generated/events.ts is stale: run `npm run schemas:generate` and commit the result\n');
      current = false;
    }
    const unrecorded = unrecordedSchemas(files, versions);
    if (unrecorded.length > 0) {
      process.stderr.write(`error: schemas/versions.json lacks the current version of ${unrecorded.map((file) => `schemas/${file.path}`).join(', ')}: run \`npm run schemas:generate\` and commit the result\n`);
      current = false;
    }
    if (!current) process.exit(1);
    process.stdout.write('schemas/generated/events.ts and schemas/versions.json are current, and every schema reads its earlier versions\n');
  } else {
    mkdirSync(join(schemasRoot, 'generated'), { recursive: true });
    writeFileSync(generatedPath, renderTypes(files));
    process.stdout.write(`wrote ${generatedPath.slice(schemasRoot.length - 'schemas/'.length)}\n`);
    const unrecorded = unrecordedSchemas(files, versions);
    if (unrecorded.length > 0) {
      writeFileSync(versionsPath, renderVersions(withCurrentVersions(files, versions)));
      for (const file of unrecorded) process.stdout.write(`recorded a new version of ${file.fullName} (schemas/${file.path}) in schemas/versions.json\n`);
    }
  }
}
