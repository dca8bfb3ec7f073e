/**
 * The typed internal call (lib/net/calls.ts, its map merged in services/actions.ts): a call is checked by its
 * action's name, from a context or from the broker. Compiled by `tsc --noEmit` (scripts/test.sh), never run: each
 * `@ts-expect-error` line must stay an error, each Expect must hold.
 */
import type { Context, ServiceBroker } from 'moleculer';
import type { StageInput } from '../../lib/campaign/stages';
import { STAGE_ACTIONS } from '../../lib/campaign/states';
import { call, type ActionName, type ParamsOf, type ResultOf } from '../../lib/net/calls';
import type { SessionInfo } from '../../services/accounts.service';
import type { CampaignView, UsageResult } from '../../services/campaigns/types';
import type { RenderNodeSlotsView } from '../../services/rendering.service';
import type { Campaign as ClientCampaign } from '../../clients/typescript/src';
import type { Equal, Expect } from './assert';

/** The map holds each owner's actions, and only actions that exist. */
export type _MapHasOwners = Expect<
  Equal<
    Extract<ActionName, 'accounts.session' | 'campaigns.get' | 'files.read' | 'renderer.status'>,
    'accounts.session' | 'campaigns.get' | 'files.read' | 'renderer.status'
  >
>;
export type _ParamsOfGet = Expect<Equal<ParamsOf<'campaigns.get'>, { id: string }>>;
export type _ResultOfGet = Expect<Equal<ResultOf<'campaigns.get'>, CampaignView>>;
/** A campaign as the API presents it is typed once: the typed client's type, generated from openapi.json. */
export type _ViewIsTheClients = Expect<Equal<CampaignView, ClientCampaign>>;

/** A correct call is accepted and its answer typed by the map, from a context and from the broker alike. */
export async function correctCallsAreTyped(ctx: Context, broker: ServiceBroker): Promise<void> {
  const _session = await call(ctx, 'accounts.session', { token: 't' });
  type _Session = Expect<Equal<typeof _session, SessionInfo | null>>;

  const input = await call(broker, 'campaigns.stageInput', { campaign_id: 'c' }, { timeout: 1000, retries: 0 });
  type _Input = Expect<Equal<typeof input, StageInput>>;

  // An action that takes no params is called with its name alone.
  const _usage = await call(ctx, 'campaigns.usage');
  type _Usage = Expect<Equal<typeof _usage, UsageResult>>;
  const _nodes = await call(broker, 'rendering.nodes');
  type _Nodes = Expect<Equal<typeof _nodes, RenderNodeSlotsView[]>>;

  // The actor's stage call: every stage action takes the same StageCall.
  await call(broker, STAGE_ACTIONS.collecting, { campaign_id: 'c', input });
}

/** A wrong action name, wrong params or a misused answer do not compile. */
export async function wrongCallsAreRejected(ctx: Context, broker: ServiceBroker): Promise<void> {
  // @ts-expect-error -- no such action (a misspelt name)
  await call(ctx, 'campaigns.gett', { id: 'c' });
  // @ts-expect-error -- an action of no service's map
  await call(broker, 'nobody.anything', {});

  // @ts-expect-error -- a param the action does not take
  await call(ctx, 'campaigns.get', { idd: 'c' });
  // @ts-expect-error -- a param of the wrong type
  await call(ctx, 'campaigns.get', { id: 42 });
  // @ts-expect-error -- a required param left out
  await call(broker, 'accounts.webhookSecret', { rotate: true });
  // @ts-expect-error -- the params left out of an action that takes some
  await call(ctx, 'campaigns.get');
  // @ts-expect-error -- another action's params (campaigns.get takes { id }, the stages { campaign_id })
  await call(ctx, 'voice.storyboards', { id: 'c' });

  const session = await call(ctx, 'accounts.session', { token: 't' });
  // @ts-expect-error -- the answer may be null (no such session): it must be checked before use
  void session.email;
  // @ts-expect-error -- the answer is not what the caller says it is
  const count: number = await call(ctx, 'campaigns.timeline', { id: 'c' });
  void count;
  const stat = await call(broker, 'files.stat', { key: 'k' });
  // @ts-expect-error -- no such field on the answer
  void stat?.sizee;
}
