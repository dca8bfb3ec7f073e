/**
 * Writes the settings table of docs/operating.md from config/index.ts, so the table cannot drift from the code that
 * reads the environment (the one module that does). Each row is an environment variable `config/index.ts` reads
 * (`env.NAME`), its default as written there, and its meaning: the doc comment that begins with the variable's name,
 * else the doc comment of the setting it is assigned to, else one that mentions it. Variables in a row share one doc
 * comment. `test/unit/docs.test.ts` fails when the committed table differs from what this writes.
 *
 *   npm run -s docs:settings           rewrites the table between the markers in docs/operating.md
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as catalog from '../config/catalog';
import * as configModule from '../config/index';
import * as voices from '../config/voices';

export const CONFIG_FILE = path.join(__dirname, '..', 'config', 'index.ts');
export const OPERATING_DOC = path.join(__dirname, '..', 'docs', 'operating.md');
export const START_MARKER = '<!-- settings:start (written by npm run -s docs:settings from config/index.ts; do not edit) -->';
export const END_MARKER = '<!-- settings:end -->';

interface Setting {
  name: string;
  defaultText: string;
  meaning: string;
  order: number;
}

/** A `/** … *\/` comment's text as one line. */
function docText(raw: string): string {
  return raw
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The doc comment written just before a node, if any. */
function docOf(node: ts.Node, text: string): string | undefined {
  const ranges = ts.getLeadingCommentRanges(text, node.pos) ?? [];
  const docs = ranges.map((r) => text.slice(r.pos, r.end)).filter((c) => c.startsWith('/**'));
  return docs.length ? docText(docs[docs.length - 1]) : undefined;
}

const MODULES: Record<string, unknown>[] = [configModule, voices, catalog];

/** A constant's value as text: scalars as they are, anything else as JSON. */
function asText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** A default's value when it is a literal or a constant of the config modules; undefined when it is computed. */
function evaluate(node: ts.Expression): unknown {
  if (ts.isParenthesizedExpression(node)) return evaluate(node.expression);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isIdentifier(node)) {
    const found = MODULES.find((m) => node.text in m);
    return found ? found[node.text] : undefined;
  }
  if (ts.isPropertyAccessExpression(node)) {
    const object = evaluate(node.expression);
    return object && typeof object === 'object' ? (object as Record<string, unknown>)[node.name.text] : undefined;
  }
  if (ts.isTemplateExpression(node)) {
    let out = node.head.text;
    for (const span of node.templateSpans) {
      const value = evaluate(span.expression);
      if (value === undefined) return undefined;
      out += asText(value) + span.literal.text;
    }
    return out;
  }
  return undefined;
}

/** `600000ms` reads better as `10m`; both parse to the same duration. */
function humane(value: string): string {
  const ms = /^(\d+)ms$/.exec(value);
  if (!ms) return value;
  const n = Number(ms[1]);
  return n > 0 && n % 60_000 === 0 ? `${n / 60_000}m` : n > 0 && n % 1000 === 0 ? `${n / 1000}s` : value;
}

function shown(node: ts.Expression, source: ts.SourceFile): string {
  if (ts.isIdentifier(node) && node.text === 'undefined') return 'unset';
  const value = evaluate(node);
  if (value === undefined) return `\`${ts.isTemplateExpression(node) ? node.getText(source).slice(1, -1) : node.getText(source)}\``;
  if (Array.isArray(value)) return value.map((v) => `\`${asText(v)}\``).join(' or ');
  return `\`${humane(asText(value))}\``;
}

/** What the code falls back to when the variable is unset, read from the expression around `env.NAME`. */
function defaultOf(access: ts.Node, source: ts.SourceFile): string {
  let node = access;
  // `env.X?.trim()` and the like: the variable's own expression.
  while (ts.isPropertyAccessExpression(node.parent) || (ts.isCallExpression(node.parent) && node.parent.expression === node))
    node = node.parent;
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.left === node) {
    const op = parent.operatorToken.kind;
    if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
      return shown(parent.right, source);
    }
  }
  if (ts.isConditionalExpression(parent) && parent.condition === node) return shown(parent.whenFalse, source);
  if (ts.isCallExpression(parent) && ts.isIdentifier(parent.expression)) {
    if (parent.expression.text === 'parseInteger' && parent.arguments[2]) return shown(parent.arguments[2], source);
    if (parent.expression.text === 'parseBoolean') return '`false`';
  }
  return 'unset';
}

/** Interfaces and type literals of the file: their members' docs and types, to follow a setting's path. */
function membersOf(source: ts.SourceFile, text: string) {
  const interfaces = new Map<string, ts.NodeArray<ts.TypeElement>>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node.members);
  });
  const lookup = (members: ts.NodeArray<ts.TypeElement> | undefined, name: string) =>
    members?.find((m): m is ts.PropertySignature => ts.isPropertySignature(m) && m.name.getText(source) === name);
  const membersOfType = (type: ts.TypeNode | undefined): ts.NodeArray<ts.TypeElement> | undefined => {
    if (!type) return undefined;
    if (ts.isTypeLiteralNode(type)) return type.members;
    if (ts.isTypeReferenceNode(type)) return interfaces.get(type.typeName.getText(source));
    if (ts.isUnionTypeNode(type)) return type.types.map(membersOfType).find(Boolean);
    return undefined;
  };
  /** The doc of the member at `path` from `root` (leaf), and of the deepest documented member above it (ancestor). */
  return (root: ts.TypeNode | undefined, names: string[]): { leaf?: string; ancestor?: string } => {
    let members = membersOfType(root);
    let ancestor: string | undefined;
    for (const [i, name] of names.entries()) {
      const member = lookup(members, name);
      if (!member) return { ancestor };
      const doc = docOf(member, text);
      if (i === names.length - 1) return { leaf: doc, ancestor };
      ancestor = doc ?? ancestor;
      members = membersOfType(member.type);
    }
    return { ancestor };
  };
}

/** The property path of `env.NAME` inside an object literal, and the declared type of that literal's root. */
function settingPath(access: ts.Node): { root?: ts.TypeNode; names: string[] } {
  const names: string[] = [];
  let node: ts.Node = access;
  let objectRoot: ts.ObjectLiteralExpression | undefined;
  while (node.parent) {
    if (ts.isPropertyAssignment(node.parent) && node.parent.initializer === node) {
      names.unshift(node.parent.name.getText());
      objectRoot = node.parent.parent;
      node = objectRoot;
      continue;
    }
    if (ts.isFunctionLike(node.parent) || ts.isStatement(node.parent)) break;
    node = node.parent;
  }
  if (!objectRoot) return { names: [] };
  const holder = objectRoot.parent;
  if (ts.isVariableDeclaration(holder)) return { root: holder.type, names };
  if (ts.isReturnStatement(holder)) {
    let fn: ts.Node | undefined = holder;
    while (fn && !ts.isFunctionDeclaration(fn)) fn = fn.parent;
    return { root: fn && ts.isFunctionDeclaration(fn) ? fn.type : undefined, names };
  }
  return { names };
}

export function readSettings(file = CONFIG_FILE): Setting[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const memberDoc = membersOf(source, text);
  const allDocs: string[] = [];
  const collectDocs = (node: ts.Node) => {
    const doc = docOf(node, text);
    if (doc && !allDocs.includes(doc)) allDocs.push(doc);
    node.forEachChild(collectDocs);
  };
  collectDocs(source);
  // Where each helper is called from loadConfig: its variables are listed there, in loadConfig's order.
  const loadConfig = source.statements.find(
    (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'loadConfig',
  );
  if (!loadConfig) throw new Error('config/index.ts has no loadConfig');
  const callSites = new Map<string, number>();
  const findCalls = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && !callSites.has(node.expression.text))
      callSites.set(node.expression.text, node.getStart(source));
    node.forEachChild(findCalls);
  };
  findCalls(loadConfig);

  const settings = new Map<string, Setting>();
  const visit = (node: ts.Node) => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'env' &&
      /^[A-Z][A-Z0-9_]*$/.test(node.name.text)
    ) {
      const name = node.name.text;
      if (!settings.has(name)) {
        const fn = ((n: ts.Node | undefined) => {
          while (n && !ts.isFunctionDeclaration(n)) n = n.parent;
          return n;
        })(node);
        const inLoad = fn === loadConfig;
        const order = inLoad
          ? node.getStart(source)
          : (callSites.get(fn?.name?.text ?? '') ?? Number.MAX_SAFE_INTEGER) + node.getStart(source) / 1e7;
        const startsWith = allDocs.find((d) => new RegExp(`^${name}\\b`).test(d));
        const { root, names } = settingPath(node);
        const member = names.length ? memberDoc(root, names) : {};
        const meaning =
          startsWith ??
          member.leaf ??
          allDocs.find((d) => new RegExp(`\\b${name}\\b`).test(d)) ??
          member.ancestor ??
          (fn ? docOf(fn, text) : undefined);
        if (!meaning) throw new Error(`config/index.ts reads ${name} but no doc comment says what it is: write one`);
        settings.set(name, { name, defaultText: defaultOf(node, source), meaning, order });
      }
    }
    node.forEachChild(visit);
  };
  visit(source);
  return [...settings.values()].sort((a, b) => a.order - b.order);
}

export function settingsTable(settings = readSettings()): string {
  const rows: Setting[][] = [];
  for (const s of settings) {
    const last = rows[rows.length - 1];
    if (last && last[0].meaning === s.meaning) last.push(s);
    else rows.push([s]);
  }
  const cell = (t: string) => t.replace(/\|/g, '\\|');
  return [
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows.map((row) => {
      // "NAME, OTHER: what it is" says the names the row already shows.
      const bare = row[0].meaning.replace(/^[A-Z][A-Z0-9_]*(, [A-Z][A-Z0-9_]*)*: /, '');
      const meaning = bare.charAt(0).toUpperCase() + bare.slice(1);
      return `| ${row.map((s) => `\`${s.name}\``).join(', ')} | ${cell(row.map((s) => s.defaultText).join(', '))} | ${cell(meaning)} |`;
    }),
  ].join('\n');
}

/** The document with its table replaced by `table`. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/operating.md has no ${START_MARKER} … ${END_MARKER} markers`);
  return `${doc.slice(0, start + START_MARKER.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

if (require.main === module) {
  const doc = fs.readFileSync(OPERATING_DOC, 'utf8');
  const next = withTable(doc, settingsTable());
  if (next !== doc) fs.writeFileSync(OPERATING_DOC, next);
  console.log(
    `${path.relative(process.cwd(), OPERATING_DOC)}: ${readSettings().length} settings${next === doc ? ', unchanged' : ', written'}`,
  );
}
