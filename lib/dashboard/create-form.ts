/**
 * The dashboard's New campaign form, built from the API's own create schema (CreateCampaignBody, lib/http/api-schemas.ts):
 * each of its properties becomes a field by the shape of its schema (a text, a set of choices, one of an enum, a voice
 * per language, a group of parts, key–value pairs), so an option added to the API appears in the form, and a shape the
 * form cannot show fails its unit test rather than going missing. What is posted back becomes the create's body, sent
 * to campaigns.create itself: the API's validation and messages are the form's. Pure: no I/O.
 */
import { SUPPORTED_LANGUAGES, isOneOf } from '../../config/catalog';
import { CreateCampaignBody } from '../http/api-schemas';
import type { CampaignMetadata, CampaignOptions } from '../campaign/options';
import type { CampaignWebhookEventType } from '../net/webhooks';
import { CAPTION_WORDS, QUALITY_WORDS, defaultVoiceOf, eventLabel, languageName, platformLabel, variantsLabel, voiceLabel } from './words';

/** Form fields arrive as a string, or an array of strings when a name repeats (checkboxes, metadata rows). */
export type FormValue = string | string[];
export type PostedForm = Record<string, FormValue | undefined>;

/** What the form sends to campaigns.create (the shape of services/campaigns/types.ts CreateCampaignParams). */
export interface CreateCampaignInput extends CampaignOptions {
  url: string;
  languages?: string[];
  title?: string;
  webhook_url?: string;
  webhook_events?: CampaignWebhookEventType[];
  platforms?: string[];
  metadata?: CampaignMetadata;
}

type Properties = typeof CreateCampaignBody.properties;
export type CreateFieldName = keyof Properties;

/** A JSON Schema as far as the form reads one. */
interface SchemaShape {
  type?: string | readonly string[];
  enum?: readonly string[];
  items?: SchemaShape;
  properties?: Record<string, SchemaShape>;
  additionalProperties?: boolean | SchemaShape;
  required?: readonly string[];
  pattern?: string;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  minItems?: number;
  exclusiveMinimum?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

const SECTIONS = [
  { id: 'page', title: 'The page' },
  { id: 'videos', title: 'Videos' },
  { id: 'look', title: 'Look and sound' },
  { id: 'delivery', title: 'Delivery and your own data' },
] as const;
type SectionId = (typeof SECTIONS)[number]['id'];

interface PartWords {
  label: string;
  hint?: string;
  placeholder?: string;
}
interface FieldWords extends PartWords {
  section: SectionId;
  /** one-of fields: the choice that sends nothing (the API's default) */
  defaultLabel?: string;
  /** one-of fields whose default is one of the choices: that choice starts picked, and no separate "Default" is offered */
  defaultValue?: string;
  /** a group's parts */
  parts?: Record<string, PartWords>;
  /** choices where none picked sends nothing (the API's default list) rather than being refused */
  noneIsDefault?: boolean;
}

/** Every create field's words: a property of the schema without an entry here is a type error. */
export const FIELD_WORDS: Record<CreateFieldName, FieldWords> = {
  url: {
    section: 'page',
    label: 'Page URL',
    hint: 'A public page. Without a scheme, https:// is assumed. Loading it takes a few seconds.',
    placeholder: 'https://www.example.com/product',
  },
  title: { section: 'page', label: 'Title', hint: "Defaults to the page's host name." },
  languages: { section: 'videos', label: 'Languages' },
  platforms: { section: 'videos', label: 'Platforms', hint: 'One video per language and platform (and hook variant).' },
  variants: {
    section: 'videos',
    label: 'Hook variants',
    hint: 'Videos per language and platform, each opening differently (a question, a benefit, a number from the page), to test which hook works. Still one campaign of the quota.',
    defaultValue: '1',
  },
  voice: {
    section: 'videos',
    label: 'Voices',
    hint: 'A voice for each language you chose; press play to hear a short sample. Unchanged, each language has its default voice.',
  },
  // The API's default is `burned` (drawn on the video): offered as itself, not twice.
  captions: { section: 'videos', label: 'Captions', defaultValue: 'burned' },
  quality: { section: 'videos', label: 'Quality', defaultLabel: "Default (this service's setting)" },
  brand: {
    section: 'look',
    label: 'Brand',
    hint: "Without them, the title and closing cards take the page's own colour and no logo.",
    parts: {
      primary_color: { label: 'Brand colour', hint: '#rrggbb, for the title and closing cards.', placeholder: '#3b4cca' },
      logo_url: {
        label: 'Logo URL',
        hint: 'A public PNG, JPEG, GIF or SVG of at most 5 MB, drawn on the title and closing cards.',
        placeholder: 'https://cdn.example.com/logo.png',
      },
    },
  },
  music: {
    section: 'look',
    label: 'Music',
    hint: 'Without a track, the videos have the narration alone.',
    parts: {
      url: {
        label: 'Music URL',
        hint: 'MP3, AAC, WAV or OGG, up to 20 MB, played under the voice.',
        placeholder: 'https://cdn.example.com/theme.mp3',
      },
      volume: { label: 'Music volume', hint: 'Between sentences, as a fraction of the voice: 1 as loud.' },
    },
  },
  webhook_url: {
    section: 'delivery',
    label: 'Webhook URL',
    hint: 'A public https address that receives a signed POST when the campaign is ready or fails.',
    placeholder: 'https://hooks.example.com/campaigns',
  },
  webhook_events: {
    section: 'delivery',
    label: 'Webhook events',
    hint: 'What the webhook URL is sent; none ticked: the first three. “Video ready” announces each video as soon as it is ready, before the campaign is.',
    noneIsDefault: true,
  },
  metadata: {
    section: 'delivery',
    label: 'Metadata',
    hint: 'Your own key–value pairs (e.g. a CRM id), never interpreted; returned by the API and in the webhooks.',
  },
};

/** A choice's words: languages by name, platforms by their brand's name, the options' enums by what they do. */
function choiceWords(field: string, value: string): { label: string; hint?: string } {
  if (field === 'languages') return { label: languageName(value) };
  if (field === 'platforms') return { label: platformLabel(value) };
  if (field === 'webhook_events') return { label: eventLabel(value), hint: value };
  if (field === 'variants') return { label: variantsLabel(Number(value)) };
  if (field === 'captions' && isOneOf(Object.keys(CAPTION_WORDS), value)) return CAPTION_WORDS[value as keyof typeof CAPTION_WORDS];
  if (field === 'quality' && isOneOf(Object.keys(QUALITY_WORDS), value)) return QUALITY_WORDS[value as keyof typeof QUALITY_WORDS];
  return { label: value };
}

/** The values of a set of choices: the items' enum, or, for languages (open strings in the schema), the supported codes. */
function choiceValues(name: string, schema: SchemaShape): readonly string[] {
  if (schema.items?.enum) return schema.items.enum;
  if (name === 'languages') return SUPPORTED_LANGUAGES;
  throw new Error(`the create form cannot offer choices for "${name}": its items have no enum`);
}

export type FieldKind = 'text' | 'choices' | 'one-of' | 'count' | 'per-language' | 'group' | 'pairs';

/** The kind of field a property's schema makes; a shape the form does not know throws. */
export function fieldKind(name: string, schema: SchemaShape): FieldKind {
  const type = schema.type;
  if (type === 'string') return schema.enum ? 'one-of' : 'text';
  // A small whole number (variants): one of its values, picked like a one-of.
  if (type === 'integer' && schema.minimum !== undefined && schema.maximum !== undefined && schema.maximum - schema.minimum < 10)
    return 'count';
  if (type === 'array' && schema.items?.type === 'string') return 'choices';
  if (type === 'object') {
    const keys = Object.keys(schema.properties ?? {});
    if (keys.length && keys.every((key) => isOneOf(SUPPORTED_LANGUAGES, key) && schema.properties![key].enum)) return 'per-language';
    if (keys.length) return 'group';
    if (typeof schema.additionalProperties === 'object' && schema.additionalProperties.type === 'string') return 'pairs';
  }
  throw new Error(`the create form has no field for "${name}" (schema type ${JSON.stringify(type)})`);
}

const PROPERTIES = CreateCampaignBody.properties as unknown as Record<CreateFieldName, SchemaShape>;
const FIELD_NAMES = Object.keys(PROPERTIES) as CreateFieldName[];

/** The posted names of a field: `brand.primary_color`, `voice.ja`, `metadata.key` … */
function postedNames(name: string, schema: SchemaShape): string[] {
  switch (fieldKind(name, schema)) {
    case 'per-language':
    case 'group':
      return Object.keys(schema.properties!).map((part) => `${name}.${part}`);
    case 'pairs':
      return [`${name}.key`, `${name}.value`];
    default:
      return [name];
  }
}

/** The dashboard action's params: every posted name, as strings or lists of them, bounded. */
export function createFormParams(): Record<string, object> {
  const list = (max: number, length: number) => ({
    anyOf: [
      { type: 'string', maxLength: length },
      { type: 'array', maxItems: max, items: { type: 'string', maxLength: length } },
    ],
  });
  const params: Record<string, object> = {};
  for (const name of FIELD_NAMES) {
    const schema = PROPERTIES[name];
    const kind = fieldKind(name, schema);
    for (const posted of postedNames(name, schema)) {
      params[posted] = kind === 'choices' ? list(64, 64) : kind === 'pairs' ? list(64, 4 * 500) : { type: 'string', maxLength: 4096 };
    }
  }
  return params;
}

const listOf = (value: FormValue | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const textOf = (value: FormValue | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).trim();

/** The metadata rows as posted (key and value in step), blank rows left out. */
function pairsOf(form: PostedForm, name: string): Array<{ key: string; value: string }> {
  const keys = listOf(form[`${name}.key`]);
  const values = listOf(form[`${name}.value`]);
  const rows: Array<{ key: string; value: string }> = [];
  for (let i = 0; i < Math.max(keys.length, values.length); i += 1) {
    const key = (keys[i] ?? '').trim();
    const value = values[i] ?? '';
    if (key || value.trim()) rows.push({ key, value });
  }
  return rows;
}

/**
 * The create's body from the posted form, or the form's own refusal in words (what the API cannot say: an empty list
 * of choices, a volume that is not a number, a metadata value without its key). Everything else is the API's to judge.
 */
export function readCreateForm(form: PostedForm): { body: CreateCampaignInput; error?: string } {
  const body: Record<string, unknown> = { url: textOf(form.url) };
  let error: string | undefined;
  const refuse = (message: string) => (error ??= message);
  for (const name of FIELD_NAMES) {
    const schema = PROPERTIES[name];
    const words = FIELD_WORDS[name];
    switch (fieldKind(name, schema)) {
      case 'text': {
        const value = textOf(form[name]);
        if (value && name !== 'url') body[name] = value;
        break;
      }
      case 'choices': {
        const values = listOf(form[name]).filter((v) => v !== '');
        if (values.length) body[name] = values;
        else if (!words.noneIsDefault) refuse(`Choose at least one of the ${words.label.toLowerCase()}.`);
        break;
      }
      case 'one-of': {
        const value = textOf(form[name]);
        if (value) body[name] = value;
        break;
      }
      case 'count': {
        // The default sends nothing (the API's default); anything else is sent as a number, the API judging it.
        const value = textOf(form[name]);
        if (value && value !== words.defaultValue) {
          const number = Number(value);
          if (!Number.isInteger(number)) refuse(`${words.label} must be a whole number.`);
          body[name] = number;
        }
        break;
      }
      case 'per-language': {
        // Only the languages chosen: a voice left set for a language unticked afterwards is not sent.
        const chosen = listOf(form.languages);
        const voices: Record<string, string> = {};
        for (const language of Object.keys(schema.properties!)) {
          const voice = textOf(form[`${name}.${language}`]);
          if (chosen.includes(language) && voice) voices[language] = voice;
        }
        if (Object.keys(voices).length) body[name] = voices;
        break;
      }
      case 'group': {
        const group: Record<string, unknown> = {};
        for (const [part, partSchema] of Object.entries(schema.properties!)) {
          const value = textOf(form[`${name}.${part}`]);
          if (!value) continue;
          if (partSchema.type === 'number') {
            const number = Number(value);
            if (!Number.isFinite(number)) refuse(`${name}.${part} must be a number.`);
            group[part] = number;
          } else group[part] = value;
        }
        // A part that means nothing without the required one (a volume without its track) is dropped with it.
        const complete = (schema.required ?? []).every((part) => part in group);
        if (Object.keys(group).length && complete) body[name] = group;
        break;
      }
      case 'pairs': {
        const rows = pairsOf(form, name);
        const pairs: Record<string, string> = {};
        for (const row of rows) {
          if (!row.key) refuse(`${words.label}: the value "${row.value.slice(0, 40)}" has no key.`);
          else if (row.key in pairs) refuse(`${words.label}: the key "${row.key.slice(0, 40)}" is given twice.`);
          else pairs[row.key] = row.value;
        }
        if (rows.length) body[name] = pairs;
        break;
      }
    }
  }
  if (!body.url) error = 'Page URL is required: the public page to make videos of.';
  return { body: body as unknown as CreateCampaignInput, ...(error ? { error } : {}) };
}

// ---- what the template shows ----

interface ChoiceView {
  value: string;
  label: string;
  hint?: string;
  code?: string;
  checked: boolean;
}
interface PartView extends PartWords {
  id: string;
  name: string;
  value: string;
  input: 'text' | 'url' | 'number';
  pattern?: string;
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number;
}
interface VoiceChoiceView {
  id: string;
  label: string;
  sample: string;
  checked: boolean;
}
export interface FieldView extends Omit<FieldWords, 'parts'> {
  name: string;
  id: string;
  kind: FieldKind;
  required: boolean;
  value?: string;
  maxLength?: number;
  choices?: ChoiceView[];
  parts?: PartView[];
  languages?: Array<{ code: string; name: string; chosen: boolean; name_attr: string; picked: string; voices: VoiceChoiceView[] }>;
  rows?: Array<{ key: string; value: string }>;
  maxRows?: number;
}
export interface SectionView {
  id: SectionId;
  title: string;
  fields: FieldView[];
}

/** The sample of a voice (the dashboard's route; made once by the voice service and kept). */
export const voiceSamplePath = (voiceId: string) => `/dashboard/voices/${encodeURIComponent(voiceId)}/sample`;

/**
 * The form as the template lays it out, section by section: first shown (`posted` undefined) with the schema's
 * defaults, or as posted, every value kept.
 */
export function createFormView(posted: PostedForm | undefined): SectionView[] {
  const form = posted ?? {};
  const fields = FIELD_NAMES.map((name): FieldView => {
    const schema = PROPERTIES[name];
    const words = FIELD_WORDS[name];
    const kind = fieldKind(name, schema);
    const { parts: _partWords, ...fieldWords } = words;
    const base = { ...fieldWords, name, id: name, kind, required: (CreateCampaignBody.required as readonly string[]).includes(name) };
    switch (kind) {
      case 'text':
        return { ...base, value: textOf(form[name]), maxLength: schema.maxLength };
      case 'choices': {
        const picked = posted ? listOf(form[name]) : ((schema.default as string[] | undefined) ?? []);
        return {
          ...base,
          choices: choiceValues(name, schema).map((value) => ({
            value,
            ...choiceWords(name, value),
            ...(name === 'languages' ? { code: value } : {}),
            checked: picked.includes(value),
          })),
        };
      }
      case 'one-of': {
        const picked = textOf(form[name]) || (words.defaultValue ?? '');
        return {
          ...base,
          choices: [
            ...(words.defaultValue ? [] : [{ value: '', label: words.defaultLabel ?? 'Default', checked: picked === '' }]),
            ...schema.enum!.map((value) => ({ value, ...choiceWords(name, value), checked: picked === value })),
          ],
        };
      }
      case 'count': {
        const picked = textOf(form[name]) || (words.defaultValue ?? '');
        const values = Array.from({ length: schema.maximum! - schema.minimum! + 1 }, (_, i) => String(schema.minimum! + i));
        return { ...base, choices: values.map((value) => ({ value, ...choiceWords(name, value), checked: picked === value })) };
      }
      case 'per-language': {
        const chosen = posted ? listOf(form.languages) : ((PROPERTIES.languages.default as string[] | undefined) ?? []);
        return {
          ...base,
          languages: Object.entries(schema.properties!).map(([code, voices]) => {
            const picked = textOf(form[`${name}.${code}`]);
            const standard = defaultVoiceOf(code);
            const defaultLabel = `Default: ${standard ? voiceLabel(standard).replace(/; the default$/, '') : 'the language’s voice'}`;
            return {
              code,
              name: languageName(code),
              chosen: chosen.includes(code),
              name_attr: `${name}.${code}`,
              picked: picked ? voiceLabel(picked) : defaultLabel,
              voices: [
                ...(standard ? [{ id: '', label: defaultLabel, sample: voiceSamplePath(standard), checked: picked === '' }] : []),
                // The default voice is the first choice; it is not offered a second time under its own name.
                ...voices
                  .enum!.filter((id) => id !== standard)
                  .map((id) => ({ id, label: voiceLabel(id), sample: voiceSamplePath(id), checked: picked === id })),
              ],
            };
          }),
        };
      }
      case 'group': {
        const parts = Object.entries(schema.properties!).map(([part, partSchema]): PartView => {
          const partWords = words.parts?.[part] ?? { label: part };
          const number = partSchema.type === 'number';
          return {
            ...partWords,
            id: `${name}-${part}`,
            name: `${name}.${part}`,
            value: textOf(form[`${name}.${part}`]),
            input: number ? 'number' : partSchema.pattern ? 'text' : 'url',
            ...(partSchema.pattern ? { pattern: partSchema.pattern.replace(/^\^|\$$/g, '') } : {}),
            ...(partSchema.maxLength ? { maxLength: partSchema.maxLength } : {}),
            ...(number
              ? {
                  min: partSchema.minimum ?? partSchema.exclusiveMinimum,
                  max: partSchema.maximum,
                  step: 0.05,
                  placeholder: typeof partSchema.default === 'number' ? String(partSchema.default) : partWords.placeholder,
                  hint: `${partWords.hint ?? ''}${typeof partSchema.default === 'number' ? ` ${partSchema.default} when empty.` : ''}`.trim(),
                }
              : {}),
          };
        });
        return { ...base, parts };
      }
      case 'pairs': {
        const rows = pairsOf(form, name);
        const maxRows = schema.maxProperties ?? 20;
        const blanks = Math.max(0, Math.min(maxRows, Math.max(3, rows.length + 2)) - rows.length);
        return { ...base, rows: [...rows, ...Array.from({ length: blanks }, () => ({ key: '', value: '' }))], maxRows };
      }
    }
  });
  return SECTIONS.map((section) => ({ ...section, fields: fields.filter((field) => field.section === section.id) }));
}

/** What a campaign asked for (GET's echo of the create's options), as the campaign page lists it; defaults left out. */
export interface AskedOptions {
  voice?: Record<string, string | undefined>;
  captions?: string;
  quality?: string;
  brand?: { primary_color?: string; logo_url?: string };
  music?: { url: string; volume?: number };
  variants?: number;
  metadata?: Record<string, string>;
}
export function optionsSummary(asked: AskedOptions): Array<{ label: string; value: string }> {
  const lines: Array<{ label: string; value: string }> = [];
  const voices = Object.entries(asked.voice ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  if (voices.length)
    lines.push({ label: 'Voices', value: voices.map(([code, id]) => `${languageName(code)}: ${voiceLabel(id)}`).join('; ') });
  if (asked.variants && asked.variants > 1) lines.push({ label: 'Hook variants', value: `${asked.variants} per language and platform` });
  if (asked.captions) lines.push({ label: 'Captions', value: choiceWords('captions', asked.captions).label });
  if (asked.quality) lines.push({ label: 'Quality', value: choiceWords('quality', asked.quality).label });
  if (asked.brand?.primary_color) lines.push({ label: 'Brand colour', value: asked.brand.primary_color });
  if (asked.brand?.logo_url) lines.push({ label: 'Logo', value: asked.brand.logo_url });
  if (asked.music)
    lines.push({
      label: 'Music',
      value: `${asked.music.url}${asked.music.volume !== undefined ? ` at volume ${asked.music.volume}` : ''}`,
    });
  const metadata = Object.entries(asked.metadata ?? {});
  if (metadata.length) lines.push({ label: 'Metadata', value: metadata.map(([key, value]) => `${key} = ${value}`).join('; ') });
  return lines;
}
