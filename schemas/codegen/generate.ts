import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listSchemaFiles, schemasRoot } from '../files.js';
import { renderTypes } from './typescript.js';

/** `generate` writes schemas/generated/events.ts; `check` exits 1 when that file is stale. */
const generatedPath = join(schemasRoot, 'generated', 'events.ts');

export function isGeneratedCurrent(): boolean {
  try {
    return readFileSync(generatedPath, 'utf8') === renderTypes(listSchemaFiles());
  } catch {
    return false;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write('usage: npm run schemas:generate | npm run schemas:check\ngenerate writes schemas/generated/events.ts (TypeScript types of the Avro schemas in schemas/); check exits 1 when that file is stale.\n');
    process.exit(0);
  }
  const mode = process.argv[2] ?? 'generate';
  if (mode === 'check') {
    if (!isGeneratedCurrent()) {
      process.stderr.write('schemas/generated/events.ts is stale: run `npm run schemas:generate` and commit the result\n');
      process.exit(1);
    }
    process.stdout.write('schemas/generated/events.ts is current\n');
  } else {
    mkdirSync(join(schemasRoot, 'generated'), { recursive: true });
    writeFileSync(generatedPath, renderTypes(listSchemaFiles()));
    process.stdout.write(`wrote ${generatedPath.slice(schemasRoot.length - 'schemas/'.length)}\n`);
  }
}
