/**
 * Stages `processing` (script.analyze: scenes and key facts) and `scripting` (script.write: one
 * narration script per language, with its script_source recorded on the videos).
 */
import path from 'node:path';
import type { Context, ServiceSchema } from 'moleculer';
import { configOf } from '../config';
import { isSupportedLanguage, type LanguageCode } from '../config/catalog';
import type { PageCapture, ScreenshotRef } from '../lib/db/models';
import { notFound, stageFailure } from '../lib/errors';
import { chooseScreens, keyFacts, type CampaignPlanDocument, type CapturedText } from '../lib/script/analyze';
import { writeScript, type CapturedVariant, type ScriptDocument } from '../lib/script/writer';
import { storageFor } from '../lib/storage';
import { createTranslator, TranslationError } from '../lib/translate';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';

interface StageParams { campaign_id: string }
const stageParams = { type: 'object', additionalProperties: false, required: ['campaign_id'], properties: { campaign_id: { type: 'string', maxLength: 64 } } };

type Methods = DbMethods & { captures(campaignId: string): Promise<PageCapture[]> };

const ScriptService: ServiceSchema<{}, Methods> = {
  name: 'script',
  mixins: [DbMixin({ model: 'CampaignPlan' })],

  created(this: any) {
    const config = configOf(this.broker);
    this.storage = storageFor(this.broker);
    this.translator = createTranslator(config.translation);
  },

  actions: {
    analyze: {
      visibility: 'public',
      params: stageParams,
      async handler(this: any, ctx: Context<StageParams>) {
        const { models } = this.db;
        const campaign = await models.Campaign.findByPk(ctx.params.campaign_id);
        if (!campaign) throw notFound();
        const captures: PageCapture[] = await this.captures(campaign.id);
        const source = captures.find((c) => c.variant === 'source');
        if (!source) throw stageFailure('capture_failed', 'The page capture is missing; it must be collected again.', false);
        const desktop = source.screenshots.filter((s: ScreenshotRef) => s.viewport === 'desktop');
        const mobile = source.screenshots.filter((s: ScreenshotRef) => s.viewport === 'mobile');
        const pngs = await Promise.all(desktop.map(async (s: ScreenshotRef) => ({ key: s.key, png: await this.storage.get(s.key) })));
        const target = configOf(this.broker).videoTargetSeconds;
        const chosen = await chooseScreens(pngs, target);
        const facts = keyFacts(source.text as unknown as CapturedText, campaign.url);
        let feature = 0;
        const plan: CampaignPlanDocument = {
          facts,
          targetSeconds: target,
          sourceLanguage: (source.language ?? 'en').toLowerCase().split('-')[0],
          brand: {
            themeColor: (source.brand.theme_color as string | null) ?? null,
            palette: (source.brand.palette as string[]) ?? [],
            iconUrls: (source.brand.icon_urls as string[]) ?? [],
          },
          scenes: chosen.map((index, n) => ({
            screenshotKey: desktop[index].key,
            mobileScreenshotKey: mobile[index]?.key ?? mobile[mobile.length - 1]?.key ?? null,
            // The hero carries the promise; each further screen one feature, while there are features.
            feature: n === 0 || feature >= facts.features.length ? null : feature++,
          })),
        };
        await models.CampaignPlan.upsert({ campaign_id: campaign.id, plan });
        return { campaign_id: campaign.id, scenes: plan.scenes.length, features: facts.features.length };
      },
    },

    write: {
      visibility: 'public',
      params: stageParams,
      async handler(this: any, ctx: Context<StageParams>) {
        const { models, sequelize } = this.db;
        const campaign = await models.Campaign.findByPk(ctx.params.campaign_id);
        if (!campaign) throw notFound();
        const planRow = await models.CampaignPlan.findByPk(campaign.id);
        if (!planRow) throw stageFailure('capture_failed', 'The campaign plan is missing; processing must run again.', false);
        const plan = planRow.plan as CampaignPlanDocument;
        const variants: CapturedVariant[] = (await this.captures(campaign.id)).map((c: PageCapture) => ({
          variant: c.variant, url: c.final_url || c.url, language: c.language, text: c.text as unknown as CapturedText,
        }));
        const scripts: ScriptDocument[] = [];
        for (const language of campaign.languages as string[]) {
          if (!isSupportedLanguage(language)) continue;
          try {
            scripts.push(await writeScript(language as LanguageCode, plan, variants, this.translator));
          } catch (err) {
            if (err instanceof TranslationError) {
              throw stageFailure('translation_failed', `Translation to ${language} failed: ${err.message}`, err.retryable);
            }
            throw err;
          }
        }
        await sequelize.transaction(async (transaction: any) => {
          await models.CampaignScript.destroy({ where: { campaign_id: campaign.id }, transaction });
          for (const script of scripts) {
            await models.CampaignScript.create({ campaign_id: campaign.id, language: script.language, script_source: script.source, script }, { transaction });
            await models.Video.update({ script_source: script.source }, { where: { campaign_id: campaign.id, language: script.language }, transaction });
          }
        });
        return { campaign_id: campaign.id, scripts: scripts.map((s) => ({ language: s.language, source: s.source })) };
      },
    },
  },

  methods: {
    async captures(this: any, campaignId: string) {
      return this.db.models.PageCapture.findAll({ where: { campaign_id: campaignId } });
    },
  } as any,
};

export default ScriptService;
