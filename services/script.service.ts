/**
 * Stages `processing` (script.analyze: scenes and key facts) and `scripting` (script.write: one
 * narration script per language; it returns each language's script_source for the campaign actor to record).
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { Transaction } from 'sequelize';
import { configOf } from '../config';
import { CAMPAIGN_SLOTS } from '../lib/campaign/turns';
import { isSupportedLanguage, variantsOf } from '../config/catalog';
import type { CampaignPlan, CampaignScript, ScreenshotRef } from '../lib/db/models';
import { stageFailure } from '../lib/errors';
import {
  chooseScreens,
  hasSectionShots,
  keyFacts,
  localizedScreens,
  sectionScenes,
  sectionScreens,
  shotContent,
  type CampaignPlanDocument,
  type KeyFacts,
  type PlannedScene,
} from '../lib/script/analyze';
import { createScriptModel, type ScriptModel } from '../lib/script/model-writer';
import { writeScript, type CapturedVariant, type ScriptDocument } from '../lib/script/writer';
import {
  ADOPT_SCHEMA,
  callLanguages,
  campaignTrace,
  STAGE_CALL_SCHEMA,
  STAGE_PARAMS_SCHEMA,
  type AdoptParams,
  type AdoptResult,
  type CapturedPage,
  type ScriptingResult,
  type ScriptOutputs,
  type StageCall,
  type StageParams,
} from '../lib/campaign/stages';
import { call } from '../lib/net/calls';
import { storageFor } from '../lib/storage/storage';
import type { FileStorage } from '../lib/storage/files';
import { createTranslator, TranslationError, type Translator } from '../lib/script/translate';
import { CancelableMixin, type CancelableMethods } from '../mixins/cancelable.mixin';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';

/** script.analyze's answer. */
export interface AnalyzeResult {
  campaign_id: string;
  scenes: number;
  features: number;
}

/** The actions others call (the campaign actor, the voiceover stage, reports, the dashboard), for `call` (lib/net/calls.ts). */
export interface ScriptActions {
  'script.analyze': { params: StageCall; result: AnalyzeResult };
  'script.write': { params: StageCall; result: ScriptingResult };
  'script.outputs': { params: StageParams; result: ScriptOutputs };
  'script.adopt': { params: AdoptParams; result: AdoptResult };
}

/** What the script writer reads of a captured version of the page: which it is, its address, language and text. */
function pageText(page: CapturedPage): CapturedVariant {
  return { variant: page.variant, url: page.final_url || page.url, language: page.language, text: page.text };
}

/** The heading of a page's section at a position among its sections (lib/script/sections.ts SectionFeatures.index). */
function headingAt(page: CapturedPage, section: number): string | null {
  return page.text.sections?.find((s) => s.index === section)?.heading ?? null;
}

type ScriptMethods = DbMethods<'script'> &
  CancelableMethods & {
    captures(campaignId: string): Promise<CapturedPage[]>;
    scenesBySection(facts: KeyFacts, source: CapturedPage, ownVersions: CapturedPage[], target: number): PlannedScene[];
    scenesByScreen(facts: KeyFacts, source: CapturedPage, ownVersions: CapturedPage[], target: number): Promise<PlannedScene[]>;
  };

interface ScriptLocalVars {
  storage: FileStorage;
  /** Undefined when no translation provider is configured (lib/script/translate.ts). */
  translator: Translator | undefined;
  /** Undefined when no script model is configured (SCRIPT_BASE_URL, lib/script/model-writer.ts). */
  scriptModel: ScriptModel | undefined;
}

export type ScriptThis = Service<ServiceSettingSchema> & ScriptMethods & ScriptLocalVars;

const ScriptService: ServiceSchema<ServiceSettingSchema, ScriptMethods, ScriptLocalVars> = {
  name: 'script',
  mixins: [DbMixin({ owner: 'script' }), CancelableMixin],

  created() {
    const config = configOf(this.broker);
    // Fair turns (decisions §14): the campaign actor grants this stage as many campaigns at once as its nodes declare.
    Object.assign(this.metadata, { [CAMPAIGN_SLOTS]: config.scriptCampaigns });
    this.storage = storageFor(this.broker);
    this.translator = createTranslator(config.translation);
    this.scriptModel = createScriptModel(config.scriptWriter);
  },

  actions: {
    analyze: {
      visibility: 'public',
      params: STAGE_CALL_SCHEMA,
      async handler(ctx: Context<StageCall>): Promise<AnalyzeResult> {
        const { models } = this.db;
        const campaign = ctx.params.input;
        // A campaign stopped before or while it is analysed (canceled, timed out, failed): no plan is stored for it
        // (mixins/cancelable.mixin.ts).
        const cancel = this.watchCancel(campaign.id);
        try {
          cancel.signal.throwIfAborted();
          const captures: CapturedPage[] = await this.captures(campaign.id);
          const source = captures.find((c) => c.variant === 'source');
          if (!source) throw stageFailure('capture_failed', 'The page capture is missing; it must be collected again.', false);
          const target = configOf(this.broker).videoTargetSeconds;
          const facts = keyFacts(source.text, campaign.url, source.language);
          const ownVersions = captures.filter((c) => c.variant !== 'source');
          const plan: CampaignPlanDocument = {
            facts,
            targetSeconds: target,
            sourceLanguage: (source.language ?? 'en').toLowerCase().split('-')[0],
            brand: {
              themeColor: source.brand.theme_color ?? null,
              palette: source.brand.palette ?? [],
              iconUrls: source.brand.icon_urls ?? [],
              logoKey: source.brand.logo_key ?? null,
            },
            scenes: hasSectionShots(source.screenshots)
              ? this.scenesBySection(facts, source, ownVersions, target)
              : await this.scenesByScreen(facts, source, ownVersions, target),
          };
          cancel.signal.throwIfAborted();
          // The pages' text is kept beside the plan: scripting reads it here rather than asking the capture stage again.
          await models.CampaignPlan.upsert({ campaign_id: campaign.id, plan, page_texts: captures.map(pageText) });
          return { campaign_id: campaign.id, scenes: plan.scenes.length, features: facts.features.length };
        } finally {
          cancel.done();
        }
      },
    },

    write: {
      visibility: 'public',
      params: STAGE_CALL_SCHEMA,
      async handler(ctx: Context<StageCall>): Promise<ScriptingResult> {
        const { models, sequelize } = this.db;
        const campaign = ctx.params.input;
        const planRow = await models.CampaignPlan.findByPk(campaign.id);
        if (!planRow) throw stageFailure('capture_failed', 'The campaign plan is missing; processing must run again.', false);
        const plan = planRow.plan;
        const variants: CapturedVariant[] = planRow.page_texts ?? (await this.captures(campaign.id)).map(pageText);
        const languages = callLanguages(ctx.params);
        // A lane's call (its languages named) after a node died mid-lane: a script already stored is that lane's, kept.
        const stored: CampaignScript[] = ctx.params.languages
          ? await models.CampaignScript.findAll({ where: { campaign_id: campaign.id, language: languages } })
          : [];
        const kept = stored.map((row) => row.script);
        const scripts: ScriptDocument[] = [];
        // Stopped between languages, and before anything is stored, when the campaign stops (mixins/cancelable.mixin.ts).
        const cancel = this.watchCancel(campaign.id);
        try {
          for (const language of languages) {
            if (!isSupportedLanguage(language) || kept.some((script) => script.language === language)) continue;
            cancel.signal.throwIfAborted();
            try {
              scripts.push(
                await writeScript(language, plan, variants, {
                  translator: this.translator,
                  model: this.scriptModel,
                  onModelRefused: (lang, reason) =>
                    this.logger.warn(
                      `campaign ${campaign.id}: the script model's ${lang} narration was not used (${reason}); the page's own sentences are said`,
                    ),
                  // Hook variants (decisions §15): as many openings as the campaign has variants, one per variant video.
                  variants: variantsOf(campaign.options?.variants).length,
                }),
              );
            } catch (err) {
              if (err instanceof TranslationError) {
                throw stageFailure('translation_failed', `Translation to ${language} failed: ${err.message}`, err.retryable);
              }
              throw err;
            }
          }
          cancel.signal.throwIfAborted();
        } finally {
          cancel.done();
        }
        await sequelize.transaction(async (transaction: Transaction) => {
          // Only the call's languages written now: another lane's script, written meanwhile, stays.
          const written = languages.filter((language) => !kept.some((script) => script.language === language));
          await models.CampaignScript.destroy({ where: { campaign_id: campaign.id, language: written }, transaction });
          for (const script of scripts) {
            await models.CampaignScript.create(
              { campaign_id: campaign.id, language: script.language, script_source: script.source, script },
              { transaction },
            );
          }
        });
        // The videos' script_source is the campaign actor's to record (lib/campaign/stages.ts).
        return {
          campaign_id: campaign.id,
          // How many openings each script has: a variant beyond them repeats a's, and its video says so.
          script_sources: [...kept, ...scripts].map((s) => ({
            language: s.language,
            script_source: s.source,
            openings: s.openings?.length ?? 1,
          })),
          // The language the page is written in: a video narrated from its text names it in its warning.
          page_language: plan.sourceLanguage || null,
        };
      },
    },

    /** The voiceover stage's input: the plan and each language's script (this stage owns both tables). */
    /**
     * A retry's plan and scripts (it starts after processing): the failed campaign's, copied. Its languages run in
     * lanes, so a retry that starts in scripting may have languages scripted already (kept); a language whose script
     * failed has none stored, and is scripted again.
     */
    adopt: {
      visibility: 'public',
      params: ADOPT_SCHEMA,
      async handler(ctx: Context<AdoptParams>): Promise<AdoptResult> {
        const { models, sequelize } = this.db;
        const { from_campaign_id: from, campaign_id: to } = ctx.params;
        return sequelize.transaction(async (transaction: Transaction) => {
          const plan = await models.CampaignPlan.findByPk(from, { transaction });
          if (!plan) return { copied: 0 };
          await models.CampaignPlan.upsert({ campaign_id: to, plan: plan.plan, page_texts: plan.page_texts ?? null }, { transaction });
          const scripts = await models.CampaignScript.findAll({ where: { campaign_id: from }, transaction });
          await models.CampaignScript.destroy({ where: { campaign_id: to }, transaction });
          for (const row of scripts) {
            await models.CampaignScript.create(
              { campaign_id: to, language: row.language, script_source: row.script_source, script: row.script },
              { transaction },
            );
          }
          return { copied: 1 + scripts.length };
        });
      },
    },

    outputs: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<ScriptOutputs> {
        const { models } = this.db;
        const planRow: CampaignPlan | null = await models.CampaignPlan.findByPk(ctx.params.campaign_id);
        const rows: CampaignScript[] = await models.CampaignScript.findAll({ where: { campaign_id: ctx.params.campaign_id } });
        return {
          plan: planRow?.plan ?? null,
          scripts: rows.map((row) => ({ language: row.language, script_source: row.script_source, script: row.script })),
        };
      },
    },
  },

  methods: {
    /**
     * Each scene shows the part of the page its narration is about: the hero the top of the page, each feature
     * its own section; each language's own version of the page shows its section for the same feature.
     */
    scenesBySection(facts: KeyFacts, source: CapturedPage, ownVersions: CapturedPage[], target: number): PlannedScene[] {
      const chosen = sectionScenes(facts, source.screenshots, target);
      const roles = chosen.map((c, n) => ({ heading: c.heading, ordinal: n - 1, section: c.section }));
      const screens = sectionScreens(source.screenshots, roles);
      // A language's own page shows the same section, found by its position among the page's sections (its
      // heading is in its own language); a page without that section leaves the scene to the source's screens
      // and words (lib/script/writer.ts says the scene from the section these screens show).
      const localized = ownVersions.map((version) => ({
        language: version.variant,
        screens: sectionScreens(
          version.screenshots,
          roles.map((role) => ({ ...role, heading: role.section === null ? null : (headingAt(version, role.section) ?? role.heading) })),
        ),
      }));
      return chosen.map((c, n) => ({
        ...screens[n]!,
        feature: c.feature,
        section: c.section,
        localized: Object.fromEntries(localized.flatMap((l) => (l.screens[n] ? [[l.language, l.screens[n]]] : []))),
      }));
    },

    /** A page without section headings: the hero, then the screens that differ most, in page order. */
    async scenesByScreen(facts: KeyFacts, source: CapturedPage, ownVersions: CapturedPage[], target: number): Promise<PlannedScene[]> {
      const desktop = source.screenshots.filter((s: ScreenshotRef) => s.viewport === 'desktop');
      const mobile = source.screenshots.filter((s: ScreenshotRef) => s.viewport === 'mobile');
      const pngs = await Promise.all(desktop.map(async (s: ScreenshotRef) => ({ key: s.key, png: await this.storage.get(s.key) })));
      const chosen = await chooseScreens(pngs, target);
      const ownPages = localizedScreens(
        chosen,
        ownVersions.map((c) => ({ language: c.variant, screenshots: c.screenshots })),
      );
      let feature = 0;
      return chosen.map((index, n) => {
        const phone = mobile[index] ?? mobile[mobile.length - 1];
        return {
          screenshotKey: desktop[index].key,
          mobileScreenshotKey: phone?.key ?? null,
          screenshotContent: shotContent(desktop[index]),
          mobileScreenshotContent: phone ? shotContent(phone) : null,
          // The hero carries the promise; each further screen one feature, while there are features.
          feature: n === 0 || feature >= facts.features.length ? null : feature++,
          localized: ownPages[n],
        };
      });
    },

    /** The page captures are the capture stage's: it is asked for them. */
    async captures(campaignId: string): Promise<CapturedPage[]> {
      return call(this.broker, 'capture.pages', { campaign_id: campaignId }, campaignTrace(campaignId));
    },
  } satisfies Omit<ScriptMethods, keyof DbMethods<'script'> | keyof CancelableMethods> & ThisType<ScriptThis>,
};

export default ScriptService;
