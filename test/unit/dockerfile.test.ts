import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser, type Instruction, type Label } from 'dockerfile-ast';

/**
 * The Dockerfile, read with dockerfile-ast (the parser behind the Dockerfile language server):
 * multi-stage, production dependencies only, a non-root user, OCI labels, Chromium for the
 * browser role, and nothing of the tests or benchmarks in the image or its build context.
 */

function readRepoFile(name: string): string {
  return readFileSync(path.resolve(__dirname, '..', '..', name), 'utf8');
}

const dockerfile = DockerfileParser.parse(readRepoFile('Dockerfile'));
const instructions = dockerfile.getInstructions();
const froms = dockerfile.getFROMs();
/** The instructions of the last stage: what the image is. */
const runtime = instructions.filter(
  (instruction) => instruction.getRange().start.line > froms.at(-1)!.getRange().start.line,
);

function ofKeyword(list: Instruction[], keyword: string): Instruction[] {
  return list.filter((instruction) => instruction.getKeyword() === keyword);
}

/** The ARG defaults declared before the first FROM, which FROM lines may use. */
function globalArg(name: string): string | undefined {
  const property = dockerfile
    .getInitialARGs()
    .map((arg) => arg.getProperty())
    .find((p) => p?.getName() === name);
  return property?.getValue() ?? undefined;
}

describe('Dockerfile', () => {
  it('builds in stages and runs on Node.js 20 slim', () => {
    expect(froms.map((from) => from.getBuildStage())).toEqual(['build', 'dependencies', 'runtime']);
    const image = froms
      .at(-1)!
      .getImage()!
      .replace('${NODE_IMAGE}', globalArg('NODE_IMAGE') ?? '');
    expect(image).toMatch(/^node:20\.\d+\.\d+-bookworm-slim$/);
  });

  it('ships production dependencies only, of the build only dist/src, and the store migrations', () => {
    const copies = dockerfile.getCOPYs().filter((copy) => runtime.includes(copy));
    const fromStages = copies.map((copy) => [copy.getFromFlag()?.getValue(), copy.getArguments()[0]!.getValue()]);
    expect(fromStages).toEqual([
      ['dependencies', '/app/node_modules'],
      ['build', '/app/dist/src'],
      [undefined, 'package.json'],
      [undefined, 'migrations'],
    ]);
    const dependencies = instructions.filter(
      (i) =>
        i.getRange().start.line > froms[1]!.getRange().start.line &&
        i.getRange().start.line < froms[2]!.getRange().start.line,
    );
    // npm ci runs with scripts off, so the patches of patches/ are applied after it.
    expect(ofKeyword(dependencies, 'RUN').map((run) => run.getArgumentsContent())).toEqual([
      expect.stringMatching(/^npm ci --omit=dev [^\n]*&& npx --no-install patch-package --error-on-fail$/),
    ]);
  });

  it('copies nothing of the tests or benchmarks into any stage', () => {
    const sources = dockerfile
      .getCOPYs()
      .filter((copy) => !copy.getFromFlag())
      .flatMap((copy) =>
        copy
          .getArguments()
          .slice(0, -1)
          .map((arg) => arg.getValue()),
      );
    expect(sources.sort()).toEqual(
      [
        'migrations',
        'package-lock.json',
        'package-lock.json',
        'package.json',
        'package.json',
        'package.json',
        'patches',
        'scripts/build.mjs',
        'src',
        'tsconfig.build.json',
        'tsconfig.json',
      ].sort(),
    );
    expect(ofKeyword(instructions, 'ADD')).toEqual([]);
  });

  it('gives the build stage every file npm run build names, in the context and copied', () => {
    const script = (JSON.parse(readRepoFile('package.json')) as { scripts: Record<string, string> }).scripts.build!;
    const files = script.split(/\s+/).filter((word) => /\.(m?js|json)$/.test(word));
    expect(files.length).toBeGreaterThan(0);
    const build = instructions.filter((i) => i.getRange().start.line < froms[1]!.getRange().start.line);
    const copied = dockerfile
      .getCOPYs()
      .filter((copy) => build.includes(copy))
      .flatMap((copy) =>
        copy
          .getArguments()
          .slice(0, -1)
          .map((arg) => arg.getValue()),
      );
    const allowed = readRepoFile('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    const within = (file: string, paths: string[]) => paths.some((p) => file === p || file.startsWith(`${p}/`));
    expect(files.filter((file) => !within(file, copied) || !within(file, allowed))).toEqual([]);
  });

  it('keeps the build context to what the image is made from', () => {
    const lines = readRepoFile('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    // Everything is excluded first; only the listed paths come back.
    expect(lines[0]).toBe('*');
    expect(lines.slice(1).sort()).toEqual([
      '!migrations/',
      '!package-lock.json',
      '!package.json',
      '!patches/',
      '!scripts/build.mjs',
      '!src/',
      '!tsconfig.build.json',
      '!tsconfig.json',
    ]);
  });

  it('runs as a user other than root', () => {
    const users = ofKeyword(runtime, 'USER').map((user) => user.getArgumentsContent());
    expect(users).toEqual(['node']);
  });

  it('installs Debian Chromium for the browser role, and tini as PID 1', () => {
    const installs = ofKeyword(runtime, 'RUN')
      .map((run) => run.getArgumentsContent() ?? '')
      .filter((command) => command.includes('apt-get install'));
    expect(installs).toEqual([expect.stringMatching(/apt-get install -y --no-install-recommends .*\bchromium\b/)]);
    expect(installs[0]).toMatch(/\btini\b/);
    expect(ofKeyword(runtime, 'ENTRYPOINT').map((e) => e.getArgumentsContent())).toEqual(['["/usr/bin/tini", "--"]']);
    expect(
      ofKeyword(runtime, 'ENV')
        .map((env) => env.getArgumentsContent())
        .join(' '),
    ).toMatch(/CHROMIUM_PATH=\/usr\/bin\/chromium/);
  });

  it('labels the image with the OCI annotations', () => {
    const labels = Object.fromEntries(
      ofKeyword(runtime, 'LABEL').flatMap((label) =>
        (label as Label).getProperties().map((p) => [p.getName(), p.getValue()]),
      ),
    );
    for (const key of ['title', 'description', 'licenses', 'source', 'version', 'revision', 'created', 'base.name'])
      expect({ key, value: labels[`org.opencontainers.image.${key}`] }).toEqual({ key, value: expect.any(String) });
    expect(labels['org.opencontainers.image.licenses']).toBe(JSON.parse(readRepoFile('package.json')).license);
  });
});
