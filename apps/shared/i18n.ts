// The host's locale (hostContext.locale, a BCP 47 tag) picks French or English; anything else reads English.
export type Lang = 'fr' | 'en';

let lang: Lang = 'en';

export function setLocale(locale: string | undefined): void {
  lang = locale?.toLowerCase().startsWith('fr') ? 'fr' : 'en';
  document.documentElement.lang = lang;
}

export function currentLang(): Lang {
  return lang;
}

/** A string of a view's dictionary in the current language. */
export function tr<T extends Record<string, { fr: string; en: string }>>(dict: T, key: keyof T): string {
  return dict[key]?.[lang] ?? String(key);
}

export function num(n: number, opts: Intl.NumberFormatOptions = {}): string {
  return new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-GB', opts).format(n);
}

/** A transcript time (milliseconds from the start) as m:ss or h:mm:ss. */
export function clock(ms: number): string {
  const t = Math.floor(ms / 1000);
  const hh = Math.floor(t / 3600);
  const mm = Math.floor((t % 3600) / 60);
  const ss = String(t % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** The API's snake_case enum values as words (re_entry: re entry). */
export function words(v: unknown): string {
  return String(v ?? '').replace(/_/g, ' ');
}
