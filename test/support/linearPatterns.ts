import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkSync } from 'recheck';
import ts from 'typescript';

export interface PatternSite {
  /** `file:line`, relative to the repository. */
  site: string;
  source: string;
  flags: string;
}

const ROOT = path.resolve(__dirname, '../..');

function sourceFiles(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full).flatMap((name) => sourceFiles(path.join(entry, name)));
}

/** Every regular expression literal in the TypeScript files under `entries`, in-page functions included. */
export function regexLiterals(...entries: string[]): PatternSite[] {
  const sites: PatternSite[] = [];
  for (const file of entries.flatMap(sourceFiles).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const literal = node.getText(source);
        const end = literal.lastIndexOf('/');
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        sites.push({ site: `${file}:${line}`, source: literal.slice(1, end), flags: literal.slice(end + 1) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}

/**
 * How the number of steps a backtracking engine (V8's) takes on the pattern grows with its
 * input in the worst case, as recheck finds it (by automata theory, or by fuzzing for lookaround): `safe` means linear.
 */
export function worstCaseGrowth(pattern: PatternSite): string {
  // Bounded by recheck's step limits alone: its time limits (250 ms an incubation, 1 s an attack)
  // made a loaded machine's slowness read as backtracking, and a linear pattern as polynomial.
  const diagnostics = checkSync(pattern.source, pattern.flags, {
    randomSeed: 1,
    timeout: null,
    incubationTimeout: null,
    attackTimeout: null,
    seedingTimeout: null,
  });
  if (diagnostics.status === 'safe') return 'linear';
  if (diagnostics.status === 'vulnerable') return `${diagnostics.complexity.type}, e.g. ${diagnostics.attack.pattern}`;
  return `unknown: ${diagnostics.error.kind}`;
}
