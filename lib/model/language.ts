/** The content languages (contract §8): English first, the default. */
export const LANGUAGES = ['en', 'de', 'pt-pt'] as const;
export type Language = (typeof LANGUAGES)[number];

export const isLanguage = (v: unknown): v is Language => (LANGUAGES as readonly unknown[]).includes(v);

/** Text stored per language, with the language first written: the fallback of every other one (contract §8). */
export interface Translated<T> {
  tr?: Partial<Record<Language, T>>;
  lang0: Language;
}

/** A translatable field in `lang`, else in the record's first language, else "". */
export const translated = <T>(record: Translated<T>, lang: Language, field: keyof T): string =>
  String(record.tr?.[lang]?.[field] ?? record.tr?.[record.lang0]?.[field] ?? '');
