/**
 * Our custom properties on Moleculer's own types, declared once.
 * Actions declare the rules the broker enforces for every caller (mixins/action-rules.ts: dashboard, scope, rateLimit)
 * and how the gateway publishes them (rest, openapi).
 */
import 'moleculer';
import type { AppConfig } from '../config';
import type { ApiScope } from '../lib/http/auth';

declare module 'moleculer' {
  interface ActionSchema {
    /** The API-key scope a public call of this action needs. */
    scope?: ApiScope;
    /** 'plan': each call also counts against the organization's per-plan rate (campaign creation). */
    rateLimit?: 'plan';
    /** Public route of the action, e.g. 'POST /campaigns' (relative to /api/v1). Drives the gateway aliases and OpenAPI. */
    rest?: string;
    /** OpenAPI description of the action's public route; request schemas come from `params`. */
    openapi?: {
      summary: string;
      /** What an integrator needs beyond the summary: when to call it, what it changes, its rules. */
      description: string;
      /** The document's tag (a section of the reference); default: the service's name, capitalized. */
      tag?: string;
      successStatus: number;
      response: Record<string, unknown>;
      /** The request body's schema when it is not `params` less the path's (a PUT of a document: its component). */
      requestBody?: Record<string, unknown>;
      /** Responses particular to this operation, by status: their descriptions replace the generic ones. */
      responses?: Record<number, string>;
    };
    /**
     * A dashboard page or form (services/dashboard.service.ts, routed under /dashboard): 'session' needs a signed-in
     * user; `write` also needs the session's CSRF token. The broker's action rules enforce both (mixins/action-rules.ts).
     */
    dashboard?: { access: 'public' | 'session'; write?: boolean };
  }
  interface BrokerOptions {
    /** The settings this broker's services run with. */
    app?: AppConfig;
  }
}
