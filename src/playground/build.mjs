// `npm run build`, after tsc: the playground page (src/api/routes/playground.ts serves it) as one
// script and one style sheet in dist/src/playground. esbuild bundles because the page uses
// libraries (markdown-it, Ajv's runtime) that ship as packages a browser cannot load by name.
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
// scripts/build.mjs names the directory it builds into.
const out = process.argv[2] ?? path.join(root, 'dist', 'src', 'playground');

/**
 * The JSON Schema meta-schemas the API checks a caller's schema against (src/structured/schema.ts),
 * as Ajv's standalone code: compiled here, since the page's policy allows no eval in the browser.
 */
function metaSchemaModules() {
  const standalone = require('ajv/dist/standalone').default;
  const addFormats = require('ajv-formats');
  const drafts = {
    'playground:draft07': [require('ajv').default, 'http://json-schema.org/draft-07/schema'],
    'playground:draft2020': [require('ajv/dist/2020').default, 'https://json-schema.org/draft/2020-12/schema'],
  };
  return Object.fromEntries(
    Object.entries(drafts).map(([name, [Ajv, id]]) => {
      const ajv = new Ajv({ code: { source: true }, allErrors: true, strict: false });
      addFormats(ajv);
      return [name, standalone(ajv, ajv.getSchema(id))];
    }),
  );
}

const modules = metaSchemaModules();
const metaSchemas = {
  name: 'meta-schemas',
  setup(build) {
    build.onResolve({ filter: /^playground:/ }, (args) => ({ path: args.path, namespace: 'meta-schemas' }));
    build.onLoad({ filter: /.*/, namespace: 'meta-schemas' }, (args) => ({
      contents: modules[args.path],
      loader: 'js',
      resolveDir: root,
    }));
  },
};

await mkdir(out, { recursive: true });
await build({
  entryPoints: [
    { in: path.join(here, 'main.ts'), out: 'app' },
    { in: path.join(here, 'style.css'), out: 'app' },
  ],
  outdir: out,
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  plugins: [metaSchemas],
  logLevel: 'warning',
});
await copyFile(path.join(here, 'index.html'), path.join(out, 'index.html'));
