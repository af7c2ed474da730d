/**
 * A form's look and behaviour settings, kept in `form_json.settings` beside the components so that the API and the
 * console's Look page store them the same way and the same check refuses bad ones: logo, colours, thank-you text,
 * redirect after a response, the language of the hosted page's fixed texts, and the bot defence.
 */
import { AppError } from '../../errors/app-error.ts';

/** The languages the hosted page's fixed texts are shipped in. */
export const LANGUAGES = ['en', 'es'] as const;
/** One shipped language. */
export type Language = (typeof LANGUAGES)[number];

/** The bot defences a form may have besides the honeypot. */
export const BOT_DEFENCES = ['off', 'time', 'proof_of_work'] as const;
/** One bot defence. */
export type BotDefence = (typeof BOT_DEFENCES)[number];
/** Default and limits of the seconds a person needs at least between seeing the page and posting it. */
export const MIN_SECONDS = { default: 3, min: 1, max: 600 } as const;
/** Default and limits of the proof of work's difficulty (leading zero bits of the SHA-256). */
export const DIFFICULTY = { default: 18, min: 8, max: 24 } as const;

/** The settings that belong to the Look page (the bot defence has its own). */
export const LOOK_KEYS = [
  'logo_url',
  'accent_color',
  'background_color',
  'text_color',
  'thank_you_text',
  'redirect_url',
  'language',
] as const;
/** The settings of the bot defence. */
export const BOT_KEYS = ['bot_defence', 'bot_min_seconds', 'bot_difficulty'] as const;

/** The checked settings (all optional). */
export interface FormSettings {
  logo_url?: string;
  accent_color?: string;
  background_color?: string;
  text_color?: string;
  thank_you_text?: string;
  redirect_url?: string;
  language?: Language;
  bot_defence?: Exclude<BotDefence, 'off'>;
  bot_min_seconds?: number;
  bot_difficulty?: number;
}

const COLOR = /^#[0-9a-f]{6}$/i;
const HTTPS = /^https:\/\/[^\s"<>]+$/i;
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/;

const invalid = (message: string) => new AppError('form.invalid_definition', `form_json.settings.${message}`);

/** Checks `form_json.settings`; returns the settings without empty values. */
export function parseSettings(raw: unknown): FormSettings {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new AppError('form.invalid_definition', 'form_json.settings must be an object');
  const s = raw as Record<string, unknown>;
  const out: FormSettings = {};
  const text = (name: keyof FormSettings): string | undefined => {
    const v = s[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw invalid(`${name} must be a string`);
    return v;
  };
  const logo = text('logo_url');
  if (logo !== undefined && !HTTPS.test(logo) && !DATA_IMAGE.test(logo))
    throw invalid('logo_url must be an https URL or a data:image URL');
  if (logo) out.logo_url = logo;
  for (const name of ['accent_color', 'background_color', 'text_color'] as const) {
    const v = text(name);
    if (v !== undefined && !COLOR.test(v)) throw invalid(`${name} must be a colour written #rrggbb`);
    if (v) out[name] = v.toLowerCase();
  }
  const thanks = text('thank_you_text');
  if (thanks !== undefined && thanks.length > 2000)
    throw invalid('thank_you_text must be at most 2000 characters');
  if (thanks) out.thank_you_text = thanks;
  const redirect = text('redirect_url');
  if (redirect !== undefined && !HTTPS.test(redirect)) throw invalid('redirect_url must be an https URL');
  if (redirect) out.redirect_url = redirect;
  const lang = text('language');
  if (lang !== undefined && !(LANGUAGES as readonly string[]).includes(lang))
    throw invalid(`language must be one of ${LANGUAGES.join(', ')}`);
  if (lang) out.language = lang as Language;
  return { ...out, ...parseBotSettings(s) };
}

/** The bot defence settings: a mode other than `off` and whole numbers within their limits. */
function parseBotSettings(s: Record<string, unknown>): FormSettings {
  const out: FormSettings = {};
  const mode = s.bot_defence;
  if (
    mode !== undefined &&
    mode !== null &&
    mode !== '' &&
    !(BOT_DEFENCES as readonly unknown[]).includes(mode)
  )
    throw invalid(`bot_defence must be one of ${BOT_DEFENCES.join(', ')}`);
  if (mode === 'time' || mode === 'proof_of_work') out.bot_defence = mode;
  for (const [name, limits] of [
    ['bot_min_seconds', MIN_SECONDS],
    ['bot_difficulty', DIFFICULTY],
  ] as const) {
    const v = s[name];
    if (v === undefined || v === null || v === '') continue;
    if (!Number.isInteger(v) || (v as number) < limits.min || (v as number) > limits.max)
      throw invalid(`${name} must be a whole number from ${limits.min} to ${limits.max}`);
    out[name] = v as number;
  }
  return out;
}

/** The bot defence a form's settings ask for, with defaults filled in. */
export function botDefenceOf(s: FormSettings): { mode: BotDefence; minSeconds: number; difficulty: number } {
  return {
    mode: s.bot_defence ?? 'off',
    minSeconds: s.bot_min_seconds ?? MIN_SECONDS.default,
    difficulty: s.bot_difficulty ?? DIFFICULTY.default,
  };
}

/** The settings of a stored definition (checked when it was stored). */
export function settingsOf(formJsonText: string): FormSettings {
  return ((JSON.parse(formJsonText) as { settings?: FormSettings }).settings ?? {}) as FormSettings;
}
