/**
 * The mixins type `this` as declared: a service that lists DbMethods and CancelableMethods in its methods type gets
 * `this.db` (mixins/db.mixin.ts) and `this.watchCancel` (mixins/cancelable.mixin.ts) typed in its actions and
 * methods, and its own methods are checked against its declared Methods type (`satisfies`, as every service does).
 * Compiled by `tsc --noEmit` (scripts/test.sh), never run: each `@ts-expect-error` line must stay an error.
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { ScopedDatabase } from '../../lib/db/ownership';
import type { Campaign } from '../../lib/db/models';
import { CancelableMixin, type CancelableMethods, type CancelWatch } from '../../mixins/cancelable.mixin';
import { DbMixin, type DbMethods } from '../../mixins/db.mixin';
import type { OpsThis } from '../../services/ops.service';
import type { RendererThis } from '../../services/renderer.service';
import type { VoiceThis } from '../../services/voice.service';
import type { CampaignsThis } from '../../services/campaigns/types';
import type { Equal, Expect } from './assert';

type ProbeMethods = DbMethods<'campaigns'> &
  CancelableMethods & {
    campaignOf(id: string): Promise<Campaign | null>;
  };
interface ProbeLocalVars {
  seen: number;
}
type ProbeThis = Service<ServiceSettingSchema> & ProbeMethods & ProbeLocalVars;

/** A service built as ours are: the mixins' members on `this`, in an action and in a method. */
export const ProbeService: ServiceSchema<ServiceSettingSchema, ProbeMethods, ProbeLocalVars> = {
  name: 'probe',
  mixins: [DbMixin({ owner: 'campaigns' }), CancelableMixin],
  actions: {
    find: {
      async handler(ctx: Context<{ id: string }>): Promise<number> {
        type _Db = Expect<Equal<typeof this.db, ScopedDatabase<'campaigns'>>>;
        type _Watch = Expect<Equal<ReturnType<typeof this.watchCancel>, CancelWatch>>;
        type _Own = Expect<Equal<typeof this.seen, number>>;
        const watch = this.watchCancel(ctx.params.id);
        // @ts-expect-error -- watchCancel takes a campaign id
        this.watchCancel(42);
        // @ts-expect-error -- the database has no such member
        void this.db.modelz;
        // @ts-expect-error -- no such model
        void this.db.models.Campaignz;
        // @ts-expect-error -- another service's table: not among the campaign actor's models (lib/db/ownership.ts)
        void this.db.models.PageCapture;
        const found = await this.campaignOf(ctx.params.id);
        watch.done();
        return found ? 1 : 0;
      },
    },
  },
  methods: {
    async campaignOf(id: string) {
      type _Db = Expect<Equal<typeof this.db, ScopedDatabase<'campaigns'>>>;
      type _This = Expect<Equal<typeof this, ProbeThis>>;
      return this.db.models.Campaign.findByPk(id);
    },
  } satisfies Omit<ProbeMethods, keyof DbMethods<'campaigns'> | keyof CancelableMethods> & ThisType<ProbeThis>,
};

/** `satisfies` on the methods rejects a method left out or of another signature. */
export const missingMethod = {
  // @ts-expect-error -- campaignOf is declared but not written
  methods: {} satisfies Omit<ProbeMethods, keyof DbMethods<'campaigns'> | keyof CancelableMethods> & ThisType<ProbeThis>,
};
export const wrongSignature = {
  methods: {
    // @ts-expect-error -- campaignOf answers a campaign, not a number
    campaignOf(id: string) {
      return id.length;
    },
  } satisfies Omit<ProbeMethods, keyof DbMethods<'campaigns'> | keyof CancelableMethods> & ThisType<ProbeThis>,
};

/** The services' own `this` types carry their mixins' members, and only those they mix in. */
export type _VoiceDb = Expect<Equal<VoiceThis['db'], ScopedDatabase<'voice'>>>;
export type _VoiceCancel = Expect<Equal<VoiceThis['watchCancel'], CancelableMethods['watchCancel']>>;
export type _OpsDb = Expect<Equal<OpsThis['db'], ScopedDatabase<'ops'>>>;
export type _CampaignsDb = Expect<Equal<CampaignsThis['db'], ScopedDatabase<'campaigns'>>>;
/** A reader's models are finders only: ops reads the campaigns and cannot write them. */
export type _OpsFinds = Expect<Equal<Awaited<ReturnType<OpsThis['db']['models']['Campaign']['findByPk']>>, Campaign | null>>;
// @ts-expect-error -- no write on a read-only view
export type _OpsWrites = OpsThis['db']['models']['Campaign']['update'];
// @ts-expect-error -- the voice stage has no campaigns table: it asks the owner
export type _VoiceCampaigns = VoiceThis['db']['models']['Campaign'];
export type _RendererCancel = Expect<Equal<RendererThis['watchCancel'], CancelableMethods['watchCancel']>>;
// @ts-expect-error -- the renderer holds no database (no DbMixin)
export type _RendererDb = RendererThis['db'];
// @ts-expect-error -- ops does not mix in CancelableMixin
export type _OpsCancel = OpsThis['watchCancel'];
