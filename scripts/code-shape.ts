/**
 * The code's shape in figures: the largest service files, the longest functions in
 * services/ and mixins/, lib/'s top-level entries, import circles (madge, type imports included) and type casts
 * (`x as T` and `<T>x`, not `as const`, counted by the TypeScript parser, so comments never count).
 *   npx tsx scripts/code-shape.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import ts from 'typescript';

const root = path.resolve(__dirname, '..');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(rel);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

function functionsOf(file: string): Array<{ name: string; lines: number; at: string }> {
  const source = parse(file);
  const found: Array<{ name: string; lines: number; at: string }> = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) &&
      node.body
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      const named = node.name ?? (node.parent as { name?: ts.Node }).name;
      found.push({ name: named ? named.getText(source) : '(anonymous)', lines: end - start + 1, at: `${file}:${start + 1}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function castsIn(file: string): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) && !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const')) count += 1;
    if (ts.isTypeAssertionExpression(node)) count += 1;
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return count;
}

async function main(): Promise<void> {
  const services = tsFiles('services');
  const lineCount = (file: string) => fs.readFileSync(path.join(root, file), 'utf8').split('\n').length;
  const largest = services.map((file) => ({ file, lines: lineCount(file) })).sort((a, b) => b.lines - a.lines);
  console.log(
    'largest service files:',
    largest
      .slice(0, 3)
      .map((f) => `${f.file} ${f.lines}`)
      .join(', '),
  );
  const longest = [...services, ...tsFiles('mixins')].flatMap(functionsOf).sort((a, b) => b.lines - a.lines);
  console.log(
    'longest functions:',
    longest
      .slice(0, 4)
      .map((f) => `${f.name} ${f.lines} (${f.at})`)
      .join(', '),
  );
  console.log('lib/ top level:', fs.readdirSync(path.join(root, 'lib')).join(' '));
  const graph = await madge(
    ['lib', 'services', 'mixins', 'config'].map((dir) => path.join(root, dir)),
    {
      fileExtensions: ['ts'],
      tsConfig: path.join(root, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false } },
    },
  );
  console.log('import circles:', graph.circular().length);
  const casts = ['services', 'mixins', 'lib', 'config'].flatMap(tsFiles).reduce((n, file) => n + castsIn(file), 0);
  console.log('type casts in services/ mixins/ lib/ config/:', casts);
}

void main();
