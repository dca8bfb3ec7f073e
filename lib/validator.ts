/**
 * The broker's validator: action `params` are JSON Schemas, checked with ajv. The same schemas
 * build the OpenAPI document (lib/openapi.ts), so validation and documentation cannot drift apart.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import addKeywords from 'ajv-keywords';
import { Validators, type ServiceBroker } from 'moleculer';
import { SINGLE_LINE_PATTERN } from './api-schemas';
import { invalidInput } from './errors';

export function createAjv(): Ajv {
  const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
  addFormats(ajv);
  // `transform: ['trim']` normalizes a string before its length is checked (titles, decisions §1).
  addKeywords(ajv, ['transform']);
  return ajv;
}

/** "languages/0" → "languages[0]"; the message always starts with the field it is about. */
export function describeError(error: ErrorObject): string {
  const field = error.instancePath.slice(1).split('/').filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
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
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Our actions declare JSON Schemas (top-level `type: 'object'`). Mixed-in library actions (moleculer-db's
 * find/list/get for the REPL) declare fastest-validator rules instead; they are internal and left unchecked.
 */
export function isJsonSchema(params: unknown): params is Record<string, any> {
  return !!params && typeof params === 'object' && (params as any).type === 'object' && typeof (params as any).properties === 'object';
}

export class AjvValidator extends Validators.Base {
  private readonly ajv = createAjv();
  private readonly cache = new WeakMap<object, ValidateFunction>();

  override compile(schema: Record<string, any>): any {
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

  override validate(params: Record<string, any>, schema: Record<string, any>): boolean {
    return this.compile(schema)(params);
  }

  override convertSchemaToMoleculer(schema: Record<string, any>): Record<string, any> {
    return schema;
  }

  override middleware(broker: ServiceBroker): any {
    const self = this;
    return {
      name: 'AjvValidator',
      localAction(handler: (ctx: any) => any, action: any) {
        if (!isJsonSchema(action.params)) return handler;
        const check = self.compile(action.params);
        return function validateParams(ctx: any) {
          try {
            check(ctx.params ?? {});
          } catch (err) {
            return broker.Promise.reject(err);
          }
          return handler(ctx);
        };
      },
    };
  }
}
