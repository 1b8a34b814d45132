import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { alive } from '../../ops/processes.js';

/**
 * The project's entry points the tests start as processes of their own. Each one started with
 * tsx pays for tsx's module hooks, which run on a thread of their own and answer every import
 * of the process in turn: about a second and a half of CPU per process, several seconds on a
 * busy machine, and the tests start hundreds. Bundled once per run (esbuild, the compiler tsx
 * uses), the same sources start without them.
 */
export const BUNDLED_ENTRIES = [
  'services/api/main.ts',
  'services/projector/main.ts',
  'services/admin/cli.ts',
  'services/admin/seed/main.ts',
  'services/export/cli.ts',
  'services/replay/cli.ts',
  'projections/ledger/verify-cli.ts',
  'reference/locations/full/load-cli.ts',
  'platform/db/migrate-cli.ts',
  'reference/locations/legacy/coverage-cli.ts',
  'reference/locations/legacy/export-cli.ts',
  'reference/locations/download.ts',
  'schemas/codegen/generate.ts',
  'ops/stack.ts',
  'test/support/geo-catalog-generate.ts',
  'test/support/stalled-command-holder.ts',
];

/** Inside the project, so that the bundles' packages resolve from its node_modules. */
const BUNDLES_DIR = '.test-build';

/** The bundle of `entry` among those written to `dir` by bundleEntries. */
export const bundleOf = (dir: string, entry: string) => join(dir, entry.replace(/\.ts$/, '.mjs'));

/**
 * Each source keeps its own import.meta.url (the .ts file's), as under tsx: paths the code
 * resolves from it (package.json, the schemas, the migrations) and its createRequire calls find
 * what they find under tsx. An entry sets process.argv[1] to its source before its body runs, so
 * its `import.meta.url === file://argv[1]` check, and commander's program name, see what tsx
 * gives them.
 */
function asUnderTsx(root: string, entries: Set<string>): Plugin {
  return {
    name: 'as-under-tsx',
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const source = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
        // Imports are hoisted: the assignment runs after them and before the entry's own body.
        const argv = entries.has(relative(root, args.path)) ? `process.argv[1] = ${JSON.stringify(args.path)};\n` : '';
        return { contents: argv + source, loader: 'ts' };
      });
    },
  };
}

/**
 * A folder of this run's own in the project (another run in the same checkout keeps its own;
 * those of runs that have ended are removed), for what the run builds once: the bundles, the
 * embedded cluster's template.
 */
export function runFolder(root: string): string {
  const parent = join(root, BUNDLES_DIR);
  for (const name of existsSync(parent) ? readdirSync(parent) : []) {
    if (!alive(Number(name))) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const folder = join(parent, String(process.pid));
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * Bundles BUNDLED_ENTRIES of `root` into `outdir` (the run's folder) and returns it.
 * Packages stay imports of their own, resolved from node_modules as under tsx; dynamic imports
 * stay chunks loaded when reached, so what a process loads lazily (the embedded engine) it still
 * loads only when it needs it. Stack traces name the bundles' lines (`// path.ts` above each
 * source's part); TEST_ENTRIES=tsx runs the sources instead.
 */
export async function bundleEntries(root: string, outdir: string): Promise<string> {
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(BUNDLED_ENTRIES.map((entry) => [entry.replace(/\.ts$/, ''), resolve(root, entry)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    plugins: [asUnderTsx(root, new Set(BUNDLED_ENTRIES))],
  });
  return outdir;
}
