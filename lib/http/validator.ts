/**
 * The broker's validator: action `params` are JSON Schemas, checked with ajv. The same schemas
 * build the OpenAPI document (services/gateway/openapi.ts), so validation and documentation cannot drift apart.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import addKeywords from 'ajv-keywords';
import { Validators, type Context, type Middleware, type ServiceBroker } from 'moleculer';
import { SINGLE_LINE_PATTERN } from './api-schemas';
import { invalidInput } from '../errors';

export function createAjv(options: { coerceTypes?: boolean } = {}): Ajv {
  const ajv = new Ajv({ allErrors: !!options.coerceTypes, strict: false, coerceTypes: !!options.coerceTypes, useDefaults: false });
  addFormats(ajv);
  // `transform: ['trim']` normalizes a string before its length is checked (titles, decisions §1).
  addKeywords(ajv, ['transform']);
  return ajv;
}

/** "languages/0" → "languages[0]"; the message always starts with the field it is about. */
export function describeError(error: ErrorObject): string {
  const field = error.instancePath
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  const where = field || 'body';
  switch (error.keyword) {
    case 'additionalProperties':
      return `${field ? `${field}: ` : ''}unknown field "${error.params.additionalProperty}"`;
    case 'required':
      return `${field ? `${field}.` : ''}${error.params.missingProperty} is required`;
    case 'type':
      return `${where} must be ${error.params.type === 'object' ? 'a JSON object' : `of type ${error.params.type}`}`;
    case 'enum':
      return `${where} must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'maxLength':
      return `${where} must be at most ${error.params.limit} characters`;
    case 'minLength':
      return error.params.limit === 1 ? `${where} must not be empty` : `${where} must be at least ${error.params.limit} characters`;
    case 'minItems':
      return error.params.limit === 1 ? `${where} must not be empty` : `${where} must have at least ${error.params.limit} items`;
    case 'pattern':
      return error.params.pattern === SINGLE_LINE_PATTERN
        ? `${where} must be one line, without control characters (U+0000–U+001F, U+007F)`
        : `${where} is not in the expected form`;
    case 'maxItems':
      return `${where} must have at most ${error.params.limit} items`;
    case 'uniqueItems':
      return `${where} must not list the same value twice ([${error.params.i}] and [${error.params.j}])`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Our actions declare JSON Schemas (top-level `type: 'object'`). Mixed-in library actions (moleculer-db's
 * find/list/get for the REPL) declare fastest-validator rules instead; they are internal and left unchecked.
 */
export function isJsonSchema(params: unknown): params is Record<string, unknown> {
  if (!params || typeof params !== 'object') return false;
  const schema = params as { type?: unknown; properties?: unknown };
  return schema.type === 'object' && typeof schema.properties === 'object';
}

export class AjvValidator extends Validators.Base {
  private readonly ajv = createAjv();
  private readonly cache = new WeakMap<object, ValidateFunction>();

  /** The checker answers true or throws the 422 of the first error; it never answers false. */
  override compile(schema: Record<string, unknown>): (params: unknown) => true {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.cache.set(schema, validate);
    }
    const check = validate;
    return (params: unknown) => {
      if (check(params)) return true;
      throw invalidInput(describeError(check.errors![0]));
    };
  }

  override validate(params: Record<string, unknown>, schema: Record<string, unknown>): boolean {
    return this.compile(schema)(params);
  }

  override convertSchemaToMoleculer(schema: Record<string, unknown>): Record<string, unknown> {
    return schema;
  }

  override middleware(broker: ServiceBroker): Middleware {
    // localAction runs with the broker as `this`: the validator is reached through this closure.
    const compile = (schema: Record<string, unknown>) => this.compile(schema);
    return {
      name: 'AjvValidator',
      localAction(handler: (ctx: Context) => unknown, action) {
        if (!isJsonSchema(action.params)) return handler;
        const check = compile(action.params);
        return function validateParams(ctx: Context) {
          try {
            check(ctx.params ?? {});
          } catch (err) {
            const invalid = err as Error; // check throws nothing but invalidInput's error
            return broker.Promise.reject(invalid);
          }
          return handler(ctx);
        };
      },
      // An event's payload is checked the same way; one that fails is refused (moleculer logs the handler's error).
      localEvent(handler: (ctx: Context) => void | Promise<void>, event) {
        if (!isJsonSchema(event.params)) return handler;
        const check = compile(event.params);
        return function validateEventParams(ctx: Context) {
          check(ctx.params ?? {});
          return handler(ctx);
        };
      },
    };
  }
}

/**
 * A query string's values are all text: `?limit=20` arrives as "20". Before the action's own (strict) check,
 * the gateway turns each value the schema types as a number, integer or boolean into one where the text is
 * exactly that (ajv's coerceTypes, in place); anything else is left for the strict check to name.
 */
const coercing = createAjv({ coerceTypes: true });
const coercers = new WeakMap<object, ValidateFunction>();
export function coerceQueryParams(schema: unknown, params: Record<string, unknown>): void {
  if (!isJsonSchema(schema)) return;
  let coerce = coercers.get(schema);
  if (!coerce) {
    coerce = coercing.compile(schema);
    coercers.set(schema, coerce);
  }
  coerce(params);
}
