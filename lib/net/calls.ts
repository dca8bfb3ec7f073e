/**
 * Typed internal calls: one helper, `call(ctx or broker, 'service.action', params, opts)`, checks the params by the
 * action's name and types its answer. Moleculer 0.15's own `call<TResult, TParams>(name: string, …)` takes both types
 * from the caller, restated at every call; here they come from one map, `Actions`.
 *
 * The map is empty here: lib/ knows no service. Each owner service exports the signatures of the actions others call
 * (e.g. `AccountsActions` in services/accounts.service.ts), and services/actions.ts merges them all into `Actions`
 * (declaration merging, as types/moleculer.d.ts adds our properties to moleculer's ActionSchema), so that no service
 * imports another's module to call it. Test: test/types/calls.ts.
 */
import type { CallingOptions } from 'moleculer';

/** What an action takes and answers. */
export interface ActionSignature {
  params: unknown;
  result: unknown;
}

/**
 * Every action that one part of the application calls on another, by its full name ('campaigns.get'). Filled in by
 * services/actions.ts from the owners' maps.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging (services/actions.ts)
export interface Actions {}

/** An action's full name, e.g. 'campaigns.get'. */
export type ActionName = Extract<keyof Actions, string>;
export type ParamsOf<N extends ActionName> = Actions[N] extends ActionSignature ? Actions[N]['params'] : never;
export type ResultOf<N extends ActionName> = Actions[N] extends ActionSignature ? Actions[N]['result'] : never;

/** The actions that take no params: they may be called with the name alone. */
export type ActionWithoutParams = { [N in ActionName]: undefined extends ParamsOf<N> ? N : never }[ActionName];

/**
 * What calls: an action's context (the call is its child: traced, with its meta) or the broker (ServiceBroker and
 * Context both fit).
 */
export interface Caller {
  call<TResult, TParams>(actionName: string, params: TParams, opts?: CallingOptions): Promise<TResult>;
}

/** Calls an action by its name: params checked against the map, the answer typed by it. */
export function call<N extends ActionName>(via: Caller, action: N, params: ParamsOf<N>, opts?: CallingOptions): Promise<ResultOf<N>>;
export function call<N extends ActionWithoutParams>(via: Caller, action: N): Promise<ResultOf<N>>;
export function call(via: Caller, action: string, params?: unknown, opts?: CallingOptions): Promise<unknown> {
  return via.call(action, params, opts);
}
