/**
 * The services whose actions form the public API. Their action definitions (rest, scope, rateLimit,
 * params, openapi) are the one source for the gateway's aliases and for the OpenAPI document.
 */
import type { ActionSchema, ServiceSchema } from 'moleculer';
import CampaignsService from '../services/campaigns.service';

export interface PublicAction {
  /** Moleculer action name, e.g. campaigns.create */
  name: string;
  method: string;
  /** moleculer-web path relative to /api/v1, e.g. /campaigns/:id */
  path: string;
  schema: ActionSchema;
}

const SOURCES: Array<ServiceSchema<any, any>> = [CampaignsService];

export function publicActions(): PublicAction[] {
  return SOURCES.flatMap((service) => Object.entries(service.actions ?? {}).flatMap(([key, action]) => {
    if (!action || typeof action !== 'object' || !(action as ActionSchema).rest) return [];
    const [method, path] = String((action as ActionSchema).rest).split(/\s+/);
    return [{ name: `${service.name}.${key}`, method: method.toUpperCase(), path, schema: action as ActionSchema }];
  }));
}
