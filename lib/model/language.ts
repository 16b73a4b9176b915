/** The content languages (contract §8): English first, the default. */
export const LANGUAGES = ['en', 'de', 'pt-pt'] as const;
export type Language = (typeof LANGUAGES)[number];

export const isLanguage = (v: unknown): v is Language => (LANGUAGES as readonly unknown[]).includes(v);
