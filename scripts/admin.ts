/**
 * Operators' command-line tool (decisions.md §6). Prints JSON on stdout; on error, a message on
 * stderr and a non-zero exit (1: refused by the product, 2: bad usage). It runs the same
 * `accounts.*` actions the REPL calls, on a local broker over the configured database.
 */
import { ServiceBroker } from 'moleculer';
import { loadConfig } from '../config';
import { brokerOptions } from '../broker-options';
import AccountsService from '../services/accounts.service';

const USAGE = `usage:
  admin org create --name NAME --plan PLAN
  admin user add --org ORG_ID --email EMAIL --role owner|admin|member [--password-stdin]
  admin user password --email EMAIL [--org ORG_ID] --password-stdin   (sets or resets the dashboard password; ends the user's sessions)
  admin key create --org ORG_ID --by EMAIL [--scopes a,b] [--name NAME]
  admin key revoke --key-id KEY_ID [--by EMAIL]
  admin key list --org ORG_ID
  admin webhook-secret --org ORG_ID [--rotate]
  admin plan set --org ORG_ID --plan PLAN [--campaigns N] [--languages N] [--rate N] [--keys N]
  admin org show --org ORG_ID`;

class UsageError extends Error {}

/** Stands for "the first line of standard input" until main() reads it. */
const STDIN = Symbol('stdin');

async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

interface Command {
  action: string;
  flags: Record<string, 'string' | 'integer' | 'list' | 'boolean' | 'stdin'>;
  required: string[];
  map?: Record<string, string>;
}

const COMMANDS: Record<string, Command> = {
  'org create': { action: 'accounts.createOrganization', flags: { name: 'string', plan: 'string' }, required: ['name', 'plan'] },
  'org show': { action: 'accounts.getOrganization', flags: { org: 'string' }, required: ['org'], map: { org: 'org_id' } },
  'user add': {
    action: 'accounts.addUser',
    flags: { org: 'string', email: 'string', role: 'string', 'password-stdin': 'stdin' },
    required: ['org', 'email', 'role'],
    map: { org: 'org_id', 'password-stdin': 'password' },
  },
  'user password': {
    action: 'accounts.setPassword',
    flags: { org: 'string', email: 'string', 'password-stdin': 'stdin' },
    required: ['email', 'password-stdin'],
    map: { org: 'org_id', 'password-stdin': 'password' },
  },
  'key create': {
    action: 'accounts.createKey',
    flags: { org: 'string', by: 'string', scopes: 'list', name: 'string' },
    required: ['org', 'by'],
    map: { org: 'org_id' },
  },
  'key revoke': {
    action: 'accounts.revokeKey',
    flags: { 'key-id': 'string', by: 'string' },
    required: ['key-id'],
    map: { 'key-id': 'key_id' },
  },
  'key list': { action: 'accounts.listKeys', flags: { org: 'string' }, required: ['org'], map: { org: 'org_id' } },
  'webhook-secret': {
    action: 'accounts.webhookSecret',
    flags: { org: 'string', rotate: 'boolean' },
    required: ['org'],
    map: { org: 'org_id' },
  },
  'plan set': {
    action: 'accounts.setPlan',
    flags: { org: 'string', plan: 'string', campaigns: 'integer', languages: 'integer', rate: 'integer', keys: 'integer' },
    required: ['org', 'plan'],
    map: { org: 'org_id' },
  },
};

export function parseArgs(argv: string[]): { action: string; params: Record<string, unknown> } {
  const words = argv.filter((a) => !a.startsWith('--'));
  const name = COMMANDS[`${words[0]} ${words[1]}`] ? `${words[0]} ${words[1]}` : words[0];
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${argv.join(' ')}"`);
  const params: Record<string, unknown> = {};
  const rest = argv.slice(name.split(' ').length);
  for (let i = 0; i < rest.length; i += 1) {
    const flag = rest[i].replace(/^--/, '');
    const kind = command.flags[flag];
    if (!rest[i].startsWith('--') || !kind) throw new UsageError(`unexpected argument "${rest[i]}" for "${name}"`);
    const target = command.map?.[flag] ?? flag;
    if (kind === 'boolean') {
      params[target] = true;
      continue;
    }
    if (kind === 'stdin') {
      // Read in main(): a password never appears on the command line (ps, shell history).
      params[target] = STDIN;
      continue;
    }
    const value = rest[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${flag} needs a value`);
    i += 1;
    if (kind === 'integer') {
      if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
      params[target] = Number(value);
    } else if (kind === 'list') {
      params[target] = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    } else {
      params[target] = value;
    }
  }
  const missing = command.required.filter((flag) => params[command.map?.[flag] ?? flag] === undefined);
  if (missing.length) throw new UsageError(`"${name}" needs ${missing.map((f) => `--${f}`).join(', ')}`);
  return { action: command.action, params };
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  for (const [name, value] of Object.entries(parsed.params)) {
    if (value === STDIN) parsed.params[name] = await firstLineOfStdin();
  }
  const app = loadConfig();
  const broker = new ServiceBroker({
    ...brokerOptions(app),
    nodeID: `admin-${process.pid}`,
    transporter: undefined,
    logger: false,
    retryPolicy: { enabled: false },
  });
  try {
    broker.createService(AccountsService);
    await broker.start();
    const result = await broker.call(parsed.action, parsed.params);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    const e = err as { message?: string; type?: string };
    process.stderr.write(`error${e.type && !/^[A-Z_]+$/.test(e.type) ? ` (${e.type})` : ''}: ${e.message ?? String(err)}\n`);
    return 1;
  } finally {
    await broker.stop().catch(() => undefined);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
