/**
 * The capture pool (stage `collecting`): reads customer pages in Chromium through the egress proxy.
 *   capture.check   — the first load and check that POST /campaigns waits for (422 when the page cannot be captured)
 *   capture.collect — the stage: screenshots (desktop and mobile), text, brand, and the hreflang versions of the page
 */
import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import type { Page } from 'puppeteer-core';
import type { Transaction } from 'sequelize';
import { configOf } from '../config';
import { CAMPAIGN_SLOTS } from '../lib/campaign/turns';
import { BrowserPool } from '../lib/capture/browser-pool';
import { dropNearDuplicates, palette } from '../lib/capture/images';
import {
  DESKTOP,
  MOBILE,
  laidOutForDesktopOnly,
  makePresentable,
  openPage,
  readHead,
  readText,
  readSections,
  shootSections,
  type PageHead,
  type PageText,
  type Shot,
  type Presentation,
  type Viewport,
} from '../lib/capture/page-reader';
import { NotAWebPageError, refusalReason } from '../lib/capture/refusal';
import { switcherVersionLanguage, writtenLanguage } from '../lib/capture/language-links';
import { screenBudget, type CapturedBrand } from '../lib/script/analyze';
import { sectionsToShoot } from '../lib/script/sections';
import type { PageCapture, ScreenshotRef } from '../lib/db/models';
import { guardFor } from '../lib/net/net-guard';
import { EgressProxy, type EgressDecision } from '../lib/net/egress-proxy';
import { fetchLogo, LogoError } from '../lib/capture/logo';
import { fetchMusic, MusicError } from '../lib/capture/music';
import { invalidInput, PageRefusedError, stageFailure, StageInterruptedError, messageOf } from '../lib/errors';
import {
  ADOPT_SCHEMA,
  STAGE_CALL_SCHEMA,
  STAGE_PARAMS_SCHEMA,
  type AdoptParams,
  type AdoptResult,
  type CapturedPage,
  type StageCall,
  type StageInput,
  type StageParams,
} from '../lib/campaign/stages';
import { storageKeys } from '../lib/storage/keys';
import type { CapturedScreens } from '../lib/campaign/video-document';
import { storageFor } from '../lib/storage/storage';
import type { FileStorage } from '../lib/storage/files';
import { CancelableMixin, type CancelableMethods } from '../mixins/cancelable.mixin';
import { DbMixin, type DbMethods } from '../mixins/db.mixin';

export interface CheckParams {
  url: string;
  /** create's brand.logo_url: fetched and read as an image beside the page's load (422 when it cannot be) */
  logo_url?: string;
  /** create's music.url: fetched and proved to be audio beside the page's load (422 when it is not) */
  music_url?: string;
}
export interface CheckResult {
  final_url: string;
  status: number;
  title: string;
}
/** capture.collect's answer. */
export interface CollectResult {
  campaign_id: string;
  variants: string[];
  screenshots: number;
}
/** The actions others call (the campaign actor, the scripting stages), for `call` (lib/net/calls.ts). */
export interface CaptureActions {
  'capture.check': { params: CheckParams; result: CheckResult };
  'capture.collect': { params: StageCall; result: CollectResult };
  'capture.pages': { params: StageParams; result: CapturedPage[] };
  'capture.screenshots': { params: StageParams; result: CapturedScreens[] };
  'capture.adopt': { params: AdoptParams; result: AdoptResult };
}
/** capture.health's answer. */
export interface CaptureHealth {
  browser_launches: number;
  blocked_connections: number;
  check_browser_pid: number | null;
}

/** What loadChecked saw of a page that can be captured. */
interface LoadedPage {
  finalUrl: string;
  status: number;
  title: string;
}
/** One captured version of the page, before it is stored. */
/** One viewport's pool task: what it loaded, presented, read (desktop only) and shot. */
interface ViewportCapture {
  loaded: LoadedPage;
  presented: Presentation;
  pageText: PageText | undefined;
  shots: Shot[];
}
/** A page being captured: its desktop head as soon as the page has loaded, the whole capture once both viewports are shot. */
interface VariantInProgress {
  head: Promise<PageHead>;
  capture: Promise<VariantCapture>;
  /** The sections its desktop chose to shoot (sectionsToShoot), by position; none should the desktop fail first. */
  sections: Promise<number[]>;
}
interface VariantCapture {
  text: PageText;
  shots: Buffer[];
  refs: ScreenshotRef[];
  finalUrl: string;
  presentation: Presentation;
}
/** A version of the page captured for the campaign: the source, or a language's own page. */
type CapturedVariant = VariantCapture & { variant: string; url: string };

type CaptureMethods = DbMethods<'capture'> &
  CancelableMethods & {
    collectCampaign(campaign: StageInput, signal: AbortSignal): Promise<CollectResult>;
    captureLocalized(
      campaignId: string,
      language: string,
      sourceHead: PageHead,
      sourceSections: Promise<number[]>,
      signal: AbortSignal,
    ): Promise<CapturedVariant | null>;
    storeLogo(campaign: StageInput): Promise<string | null>;
    storeMusic(campaign: StageInput): Promise<void>;
    recordCaptures(campaignId: string, variants: CapturedVariant[], brand: CapturedBrand): Promise<void>;
    loadChecked(page: Page, url: string, viewport: Viewport): Promise<LoadedPage>;
    captureVariant(
      campaignId: string,
      variant: string,
      url: string,
      withMobile: boolean,
      signal: AbortSignal,
      sourceSections?: Promise<number[]>,
    ): VariantInProgress;
    storeShots(campaignId: string, variant: string, viewports: Viewport[], captures: ViewportCapture[]): Promise<VariantCapture>;
    logo(url: string): Promise<Buffer>;
    music(url: string): Promise<Buffer>;
  };

interface CaptureLocalVars {
  /** Browser connections the egress proxy refused (set at start). */
  blockedConnections: number;
  storage: FileStorage;
  proxy: EgressProxy;
  /** capture.check's pool: a customer waiting on POST /campaigns never queues behind collections. */
  checkPool: BrowserPool;
  /** capture.collect's pool. */
  collectPool: BrowserPool;
  /** Set when the node stops: a collection failing then is interrupted, not failed. */
  stopping?: boolean;
}

export type CaptureThis = Service<ServiceSettingSchema> & CaptureMethods & CaptureLocalVars;

/** Why Chromium could not load a page, in words a customer can act on. */
function describeLoadError(err: unknown): string {
  if (err instanceof NotAWebPageError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  if (/ERR_EGRESS_address-not-allowed/.test(message)) return 'The page (or a redirect) points to an address that is not public.';
  if (/ERR_EGRESS_unreachable/.test(message)) return 'The page server could not be reached.';
  // Chromium reports every refused https tunnel alike, whether the address was not allowed or not answering.
  if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY/.test(message)) return 'The page could not be reached, or its address is not public.';
  if (/ERR_BLOCKED_BY_CLIENT/.test(message)) return 'Only http and https pages can be captured.';
  if (/ERR_NAME_NOT_RESOLVED/.test(message)) return 'The page host could not be resolved.';
  if (/timeout/i.test(message)) return 'The page did not load in time.';
  if (/ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/.test(message)) return 'The page server refused the connection.';
  if (/ERR_CERT|SSL/.test(message)) return 'The page has an invalid TLS certificate.';
  return 'The page could not be loaded.';
}

const CaptureService: ServiceSchema<ServiceSettingSchema, CaptureMethods, CaptureLocalVars> = {
  name: 'capture',
  mixins: [DbMixin({ owner: 'capture' }), CancelableMixin],

  created() {
    // Fair turns (decisions §14): the campaign actor grants this stage as many campaigns at once as its nodes declare.
    Object.assign(this.metadata, { [CAMPAIGN_SLOTS]: configOf(this.broker).captureCampaigns });
  },

  async started() {
    const config = configOf(this.broker);
    this.blockedConnections = 0;
    this.storage = storageFor(this.broker);
    this.proxy = new EgressProxy({
      ...guardFor(config),
      onDecision: (decision: EgressDecision) => {
        if (decision.allowed) return;
        // Chromium's own background requests to Google fail DNS on closed networks: not worth a warning.
        if (/DNS lookup failed/.test(decision.reason ?? '')) {
          this.logger.debug(`browser connection to ${decision.host}:${decision.port} not made: ${decision.reason}`);
          return;
        }
        this.blockedConnections += 1;
        this.logger.warn(`browser connection to ${decision.host}:${decision.port} refused: ${decision.reason}`);
      },
    });
    await this.proxy.start();
    const poolOptions = {
      executablePath: config.chromiumPath,
      concurrency: config.captureConcurrency,
      pagesPerBrowser: config.capturePagesPerBrowser,
      taskTimeoutMs: config.capturePageTimeoutMs * 4,
      proxyUrl: this.proxy.url,
    };
    // Two pools: a customer waiting on POST /campaigns never queues behind background collections.
    this.checkPool = new BrowserPool(poolOptions);
    this.collectPool = new BrowserPool(poolOptions);
    await Promise.all([this.checkPool.start(), this.collectPool.start()]);
  },

  async stopped() {
    this.stopping = true;
    await Promise.all([this.checkPool?.stop(), this.collectPool?.stop()]);
    await this.proxy?.stop();
  },

  actions: {
    /** For operators and tests: how the pool is doing. */
    health: {
      visibility: 'public',
      handler(): CaptureHealth {
        return {
          browser_launches: this.checkPool.browserLaunches + this.collectPool.browserLaunches,
          blocked_connections: this.blockedConnections,
          check_browser_pid: this.checkPool.currentBrowserPid() ?? null,
        };
      },
    },

    check: {
      visibility: 'public',
      params: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          url: { type: 'string', maxLength: 2048 },
          logo_url: { type: 'string', maxLength: 2048 },
          music_url: { type: 'string', maxLength: 2048 },
        },
      },
      async handler(ctx: Context<CheckParams>): Promise<CheckResult> {
        const logo = ctx.params.logo_url ? this.logo(ctx.params.logo_url) : null;
        const music = ctx.params.music_url ? this.music(ctx.params.music_url) : null;
        // Awaited even when the page fails, so their rejections are never left unhandled.
        const [page, logoOutcome, musicOutcome] = await Promise.allSettled([
          this.checkPool.run((page: Page) => this.loadChecked(page, ctx.params.url, DESKTOP)),
          logo,
          music,
        ]);
        if (page.status === 'rejected') throw page.reason;
        if (logoOutcome.status === 'rejected') {
          const err = logoOutcome.reason as Error;
          if (err instanceof LogoError) throw invalidInput(`brand.logo_url ${err.message}`, 422);
          throw err;
        }
        if (musicOutcome.status === 'rejected') {
          const err = musicOutcome.reason as Error;
          if (err instanceof MusicError) throw invalidInput(`music.url ${err.message}`, 422);
          throw err;
        }
        const result = page.value;
        return { final_url: result.finalUrl, status: result.status, title: result.title };
      },
    },

    collect: {
      visibility: 'public',
      params: STAGE_CALL_SCHEMA,
      async handler(ctx: Context<StageCall>): Promise<CollectResult> {
        const cancel = this.watchCancel(ctx.params.campaign_id);
        try {
          return await this.collectCampaign(ctx.params.input, cancel.signal);
        } catch (err) {
          if (cancel.signal.aborted) throw cancel.signal.reason;
          // A node going down is not the campaign's fault: the actor keeps it waiting and resumes it elsewhere.
          if (this.stopping) throw new StageInterruptedError('capture interrupted: node stopping');
          // The page refused now though it passed the check at create (it changed since): the campaign fails with its reason.
          if (err instanceof PageRefusedError) throw stageFailure('capture_failed', err.message, false);
          throw err;
        } finally {
          cancel.done();
        }
      },
    },

    /** The processing and scripting stages' input: every captured version of the campaign's page. */
    /** A retry's captures: the failed campaign's, copied (their screenshots stay where they were stored). */
    adopt: {
      visibility: 'public',
      params: ADOPT_SCHEMA,
      async handler(ctx: Context<AdoptParams>): Promise<AdoptResult> {
        const { models, sequelize } = this.db;
        const { from_campaign_id: from, campaign_id: to } = ctx.params;
        return sequelize.transaction(async (transaction: Transaction) => {
          const rows: PageCapture[] = await models.PageCapture.findAll({ where: { campaign_id: from }, transaction });
          await models.PageCapture.destroy({ where: { campaign_id: to }, transaction });
          const now = new Date();
          for (const row of rows) {
            const { id: _id, ...copy } = row.get({ plain: true });
            await models.PageCapture.create({ ...copy, campaign_id: to, created_at: now, updated_at: now }, { transaction });
          }
          return { copied: rows.length };
        });
      },
    },

    pages: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<CapturedPage[]> {
        const rows: PageCapture[] = await this.db.models.PageCapture.findAll({ where: { campaign_id: ctx.params.campaign_id } });
        return rows.map((row) => ({
          variant: row.variant,
          url: row.url,
          final_url: row.final_url,
          language: row.language,
          text: row.text,
          brand: row.brand,
          screenshots: row.screenshots,
        }));
      },
    },

    /** The campaign actor's video document (decisions §12): every captured version's screenshots, without their text. */
    screenshots: {
      visibility: 'public',
      params: STAGE_PARAMS_SCHEMA,
      async handler(ctx: Context<StageParams>): Promise<CapturedScreens[]> {
        const rows: PageCapture[] = await this.db.models.PageCapture.findAll({
          where: { campaign_id: ctx.params.campaign_id },
          attributes: ['variant', 'language', 'screenshots'],
        });
        return rows.map((row) => ({ variant: row.variant, language: row.language, screenshots: row.screenshots }));
      },
    },
  },

  methods: {
    async collectCampaign(campaign: StageInput, signal: AbortSignal): Promise<CollectResult> {
      // Redone from scratch when retried: same keys, rows replaced in one transaction.
      const sourceInProgress = this.captureVariant(campaign.id, 'source', campaign.url, true, signal);
      // The customer's logo and music, fetched beside the page; handled here so a failing page does not leave them
      // unhandled, awaited (and thrown) below.
      const logoInProgress = this.storeLogo(campaign);
      logoInProgress.catch(() => undefined);
      const musicInProgress = this.storeMusic(campaign);
      musicInProgress.catch(() => undefined);
      // The localized pages start as soon as the source's head (its language and hreflang links) is read after its
      // load, beside the rest of the source's capture, all through the pool (CAPTURE_CONCURRENCY pages at a time):
      // one after another, the collecting stage of a 3-language campaign took 15–17 s (bench/e2e/README.md).
      const sourceHead = await sourceInProgress.head;
      // A page that declares no language in its markup: the language its text reads in, once read.
      const declared = sourceHead.language ?? (await sourceInProgress.capture).text.language;
      const sourceLanguage = (declared ?? '').toLowerCase().split('-')[0];
      const localizedInProgress = Promise.all(
        campaign.languages
          .filter((language) => language !== sourceLanguage)
          .map((language) => this.captureLocalized(campaign.id, language, sourceHead, sourceInProgress.sections, signal)),
      );
      // The localized pages first (they never fail the stage): should the source's phone shots fail, none of
      // this attempt's pages is still being written when the stage is retried.
      const localized = await localizedInProgress;
      const source = await sourceInProgress.capture;
      // A page whose text is in another language than its markup declares (a client-rendered route keeps its shell's
      // <html lang>): the language it is written in, when the campaign asks for it (lib/capture/language-links.ts).
      // Not when that language's own version was found: it is the one its videos show.
      const written = writtenLanguage(source.text, campaign.languages);
      if (written && !localized.some((v) => v?.variant === written)) {
        this.logger.info(`campaign ${campaign.id}: the page declares ${declared ?? 'no language'} but is written in ${written}`);
        source.text.language = written;
      }
      const logoKey = await logoInProgress;
      await musicInProgress;
      signal.throwIfAborted();
      const variants: CapturedVariant[] = [{ variant: 'source', url: campaign.url, ...source }];
      for (const variant of localized) if (variant) variants.push(variant);
      const brand = {
        theme_color: source.text.themeColor,
        icon_urls: source.text.iconUrls,
        palette: await palette(source.shots.slice(0, 3)),
        logo_key: logoKey,
      };
      await this.recordCaptures(campaign.id, variants, brand);
      return {
        campaign_id: campaign.id,
        variants: variants.map((v) => v.variant),
        screenshots: variants.reduce((n, v) => n + v.refs.length, 0),
      };
    },

    /**
     * A language's own version of the page (its hreflang alternate, else its language switcher's link), desktop and
     * phone as the source, with the sections the source's desktop chose (`sourceSections`); null if none, if it fails,
     * or if a switcher's link proves not to be in that language.
     */
    async captureLocalized(
      campaignId: string,
      language: string,
      sourceHead: PageHead,
      sourceSections: Promise<number[]>,
      signal: AbortSignal,
    ) {
      const alternate = sourceHead.alternates.find((a) => a.hreflang.split('-')[0] === language);
      if (!alternate) return null;
      try {
        const capture = await this.captureVariant(campaignId, language, alternate.href, true, signal, sourceSections).capture;
        if (alternate.via === 'switcher') {
          const sourceLanguage = sourceHead.language?.toLowerCase().split('-')[0] ?? null;
          const verdict = switcherVersionLanguage(capture.text, language, sourceLanguage);
          if (!verdict) {
            this.logger.info(`campaign ${campaignId}: ${alternate.href}, linked as ${language}, is not in that language: not used`);
            return null;
          }
          capture.text.language = verdict;
        }
        return { variant: language, url: alternate.href, ...capture };
      } catch (err) {
        if (!signal.aborted) this.logger.warn(`campaign ${campaignId}: localized page ${alternate.href} not captured: ${messageOf(err)}`);
        return null;
      }
    },

    /** The logo was read at create; fetched again now (it is the customer's file, it may have changed) and stored. */
    async storeLogo(campaign: StageInput) {
      const logoUrl = campaign.options?.brand?.logo_url;
      if (!logoUrl) return null;
      try {
        const key = storageKeys.logo(campaign.id);
        await this.storage.put(key, await this.logo(logoUrl));
        return key;
      } catch (err) {
        if (err instanceof LogoError) throw stageFailure('capture_failed', `brand.logo_url ${err.message}`, err.retryable);
        throw err;
      }
    },

    /** The music likewise (the renderer mixes it under each video's narration: lib/render/music.ts), kept as fetched. */
    async storeMusic(campaign: StageInput) {
      const musicUrl = campaign.options?.music?.url;
      if (!musicUrl) return;
      let track: Buffer;
      try {
        track = await this.music(musicUrl);
      } catch (err) {
        if (err instanceof MusicError) throw stageFailure('capture_failed', `music.url ${err.message}`, err.retryable);
        throw err;
      }
      await this.storage.put(storageKeys.music(campaign.id), track);
    },

    /** This stage's rows for the campaign, replaced in one transaction: one per captured version, the brand on the source's. */
    async recordCaptures(campaignId: string, variants: CapturedVariant[], brand: CapturedBrand) {
      const { models, sequelize } = this.db;
      const now = new Date();
      await sequelize.transaction(async (transaction: Transaction) => {
        await models.PageCapture.destroy({ where: { campaign_id: campaignId }, transaction });
        for (const v of variants) {
          await models.PageCapture.create(
            {
              campaign_id: campaignId,
              variant: v.variant,
              url: v.url,
              final_url: v.finalUrl ?? v.url,
              language: v.text.language,
              text: {
                title: v.text.title,
                description: v.text.description,
                open_graph: v.text.openGraph,
                headings: v.text.headings,
                main_text: v.text.mainText,
                alternates: v.text.alternates,
                actions: v.text.actions,
                sections: v.text.sections ?? [],
                hero_paragraphs: v.text.heroParagraphs ?? [],
                list_items: v.text.listItems ?? [],
                brand_names: v.text.brandNames ?? [],
                credits: v.text.credits ?? [],
              },
              brand: v.variant === 'source' ? brand : {},
              screenshots: v.refs,
              created_at: now,
              updated_at: now,
              presentation: {
                consent_dismissed: v.presentation.consentDismissed,
                hidden_overlays: v.presentation.hiddenOverlays,
                images_loaded: v.presentation.imagesLoaded,
                images_total: v.presentation.imagesTotal,
              },
            },
            { transaction },
          );
        }
      });
    },

    /** The campaign's logo as a PNG, through the address guard (lib/capture/logo.ts). */
    logo(url: string): Promise<Buffer> {
      const config = configOf(this.broker);
      return fetchLogo(url, {
        guard: guardFor(config),
        timeoutMs: config.capturePageTimeoutMs,
      });
    },

    /** The campaign's music track as fetched, once proved to be audio, through the address guard (lib/capture/music.ts). */
    music(url: string): Promise<Buffer> {
      const config = configOf(this.broker);
      return fetchMusic(url, { guard: guardFor(config), timeoutMs: config.capturePageTimeoutMs });
    },

    async loadChecked(page: Page, url: string, viewport: Viewport): Promise<LoadedPage> {
      const timeout = configOf(this.broker).capturePageTimeoutMs;
      let opened: Awaited<ReturnType<typeof openPage>>;
      try {
        opened = await openPage(page, url, viewport, timeout);
      } catch (err) {
        throw new PageRefusedError(describeLoadError(err));
      }
      const reason = refusalReason(opened.signals);
      if (reason) throw new PageRefusedError(reason);
      return { finalUrl: opened.signals.finalUrl, status: opened.signals.status, title: opened.signals.title };
    },

    captureVariant(
      campaignId: string,
      variant: string,
      url: string,
      withMobile: boolean,
      signal: AbortSignal,
      sourceSections?: Promise<number[]>,
    ): VariantInProgress {
      const config = configOf(this.broker);
      const maxShots = config.captureMaxShots;
      // The sections a video can show (its hero and its best sections: lib/script/sections.ts), and one more should
      // the script pass one over; furniture (sponsors, events, pricing…) never. The phone shoots its own best ones
      // beside the desktop's (below).
      const sectionCount = screenBudget(config.videoTargetSeconds);
      const viewports = withMobile ? [DESKTOP, MOBILE] : [DESKTOP];
      // The desktop's head (language, hreflang versions) as soon as the page has loaded: the localized pages it
      // links start then (collectCampaign), not seconds later once it is presented, read and shot.
      let headRead!: (head: PageHead) => void;
      const headReadEarly = new Promise<PageHead>((resolve) => (headRead = resolve));
      // The sections this page's desktop chose: its phone shoots them too, and so do the page's versions in other
      // languages (`sourceSections`), so that each scene has the same section on every frame and in every language
      // (a translation ranks its sections by its own words, a phone by its own layout: either may choose others).
      let sectionsChosen!: (indices: number[]) => void;
      const sections = new Promise<number[]>((resolve) => (sectionsChosen = resolve));
      const matched = sourceSections ?? sections;
      // Both viewports at once, each in its own pool page; the text, final URL and presentation are the desktop's.
      const tasks = viewports.map((viewport) =>
        this.collectPool.run(async (page: Page) => {
          signal.throwIfAborted();
          // Canceled: the page is closed, so a load or a shot in progress ends at once.
          const closePage = () => void page.close().catch(() => undefined);
          signal.addEventListener('abort', closePage, { once: true });
          try {
            const loaded = await this.loadChecked(page, url, viewport);
            signal.throwIfAborted();
            if (viewport === DESKTOP) headRead(await readHead(page));
            const presented = await makePresentable(page);
            signal.throwIfAborted();
            // A page laid out for desktops only runs off the phone's screen: no phone shots, its desktop ones are shown.
            if (viewport === MOBILE && (await laidOutForDesktopOnly(page))) return { loaded, presented, pageText: undefined, shots: [] };
            const pageText = viewport === DESKTOP ? await readText(page) : undefined;
            // The phone ranks its sections by the same table: each scene of a 9:16 video shows its own section.
            const found = pageText?.sections ?? (await readSections(page));
            const own = sectionsToShoot(found, viewport === DESKTOP ? sectionCount : sectionCount + 1);
            if (viewport === DESKTOP) sectionsChosen(own);
            const wanted = viewport === DESKTOP && !sourceSections ? [] : await matched;
            signal.throwIfAborted();
            // The matched sections first (shootSections keeps the first maxShots - 1), each once.
            const indices = [...new Set([...wanted.filter((index) => found.some((f) => f.index === index)), ...own])];
            const sectionShots: Shot[] = await shootSections(page, maxShots, { indices });
            return { loaded, presented, pageText, shots: sectionShots };
          } catch (err) {
            throw signal.aborted ? signal.reason : err;
          } finally {
            // A desktop that failed before choosing leaves nothing to match: its phone shoots its own choice.
            if (viewport === DESKTOP) sectionsChosen([]);
            signal.removeEventListener('abort', closePage);
          }
        }),
      );
      // Settled by whichever comes first: the head read, or the desktop task failing before it was.
      const head = Promise.race([headReadEarly, tasks[0].then(() => headReadEarly)]);
      const capture = Promise.all(tasks).then((captures) => this.storeShots(campaignId, variant, viewports, captures));
      // A caller awaits one of the two first; should the other fail meanwhile, it is not an unhandled rejection.
      head.catch(() => undefined);
      capture.catch(() => undefined);
      return { head, capture, sections };
    },

    async storeShots(campaignId: string, variant: string, viewports: Viewport[], captures: ViewportCapture[]): Promise<VariantCapture> {
      const refs: ScreenshotRef[] = [];
      const kept: Buffer[] = [];
      const desktop = captures[0];
      const text: PageText = desktop.pageText!;
      const presentation: Presentation = desktop.presented;
      const finalUrl = desktop.loaded.finalUrl;
      for (const [viewportIndex, viewport] of viewports.entries()) {
        const shots = captures[viewportIndex].shots;
        // Section shots are distinct by construction (each frames its own section); screen-by-screen shots of a
        // page without sections may repeat (a short page, a fixed full-screen layer) and are thinned.
        const bySection = shots.some((shot) => shot.heading !== undefined);
        const keep = bySection ? shots.map((_, i) => i) : await dropNearDuplicates(shots.map((shot) => shot.png));
        for (const [n, index] of keep.entries()) {
          const shot = shots[index];
          const key = storageKeys.screenshot(campaignId, variant, viewport.name, n);
          await this.storage.put(key, shot.png);
          refs.push({
            key,
            viewport: viewport.name,
            index: n,
            width: viewport.width * viewport.deviceScaleFactor,
            height: viewport.height * viewport.deviceScaleFactor,
            pixelRatio: viewport.deviceScaleFactor,
            ...(shot.heading !== undefined ? { heading: shot.heading } : {}),
            ...(shot.section !== undefined ? { section: shot.section } : {}),
            ...(shot.textPx !== undefined ? { textPx: shot.textPx } : {}),
            content: shot.content,
            ...(shot.focus?.length ? { focus: shot.focus } : {}),
          });
          if (viewport === DESKTOP) kept.push(shot.png);
        }
      }
      return { text, shots: kept, refs, finalUrl, presentation };
    },
  } satisfies Omit<CaptureMethods, keyof DbMethods<'capture'> | keyof CancelableMethods> & ThisType<CaptureThis>,
};

export default CaptureService;
