/**
 * Names the provider uses for a subdivision that neither CLDR's English names nor ISO's names
 * spell closely enough for the name matcher (exonyms, adjective forms, recent renamings).
 * Keyed by ISO 3166-2 code; each entry is one reviewed fact, checked against the provider's
 * region name and ISO's own description of the code. Keep this list short: fix the matcher
 * first when a pattern repeats.
 */
export const PROVIDER_NAME_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'CH-GR': ['Grisons'], // French exonym of Graubünden
  'CN-NM': ['Inner Mongolia'], // ISO: Nei Mongol Zizhiqu
  'CZ-20': ['Central Bohemian Region'], // ISO names are adjectives: Středočeský kraj
  'CZ-31': ['South Bohemian Region'], // Jihočeský kraj
  'CZ-41': ['Karlovy Vary Region'], // Karlovarský kraj
  'CZ-42': ['Usti nad Labem Region'], // Ústecký kraj
  'CZ-52': ['Hradec Kralove Region'], // Královéhradecký kraj
  'CZ-53': ['Pardubice Region'], // Pardubický kraj
  'CZ-64': ['South Moravian Region'], // Jihomoravský kraj
  'CZ-80': ['Moravian-Silesian Region'], // Moravskoslezský kraj
  'EG-AST': ['Assiut'], // CLDR: Asyut
  'FR-20R': ['Corsica'], // ISO and CLDR: Corse
  'KR-45': ['Jeonbuk State'], // renamed from Jeollabuk-do in 2024
  'MX-CMX': ['Mexico City'], // ISO and CLDR: Ciudad de México
  'PH-12': ['Region XII'], // Soccsksargen
  'RU-CE': ['Chechnya'], // CLDR: Chechen
  'SA-14': ['Aseer'], // ISO: 'Asīr
  'UA-30': ['Kyiv city'], // the city, not Kyiv Oblast (UA-32)
  'UA-59': ['Sumy Oblast'], // ISO: Sumska oblast
};
