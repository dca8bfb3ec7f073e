/**
 * The services whose actions form the public API. Their action definitions (rest, scope, rateLimit,
 * params, openapi) are the one source for the gateway's aliases and for the OpenAPI document. Only the
 * gateway uses this, so it lives with the gateway (services/ import services/, never lib/).
 */
import type { ActionSchema } from 'moleculer';
import CampaignsService from '../campaigns.service';
import ReportsService from '../reports.service';

export interface PublicAction {
  /** Moleculer action name, e.g. campaigns.create */
  name: string;
  method: string;
  /** moleculer-web path relative to /api/v1, e.g. /campaigns/:id */
  path: string;
  schema: ActionSchema;
}

/** What is read from a service schema here: its name and its action definitions, whatever the service's `this`. */
interface ActionSource {
  name: string;
  actions?: Record<string, unknown>;
}

const SOURCES: ActionSource[] = [CampaignsService, ReportsService];

export function publicActions(): PublicAction[] {
  return SOURCES.flatMap((service) =>
    Object.entries(service.actions ?? {}).flatMap(([key, action]) => {
      if (!action || typeof action !== 'object') return [];
      const schema: ActionSchema = action;
      if (!schema.rest) return [];
      const [method, path] = String(schema.rest).split(/\s+/);
      return [{ name: `${service.name}.${key}`, method: method.toUpperCase(), path, schema }];
    }),
  );
}
