/**
 * Reviewed English names of ISO 3166-2 codes whose ISO name (often local-language or
 * transliterated: "Bayern", "Al Qāhirah", "Moskovskaya oblast'") the provider's name cannot be
 * told to agree with by spelling alone, and provider names that no source spells closely enough
 * (Czech adjective forms, the 2024 "Jeonbuk State"). They count as current names of the code: a
 * region must agree with ISO's name or one of these to carry it (iso-agreement.ts), so CLDR's
 * English names, which can be stale, never suffice. Keyed by ISO 3166-2 code; each entry is one
 * reviewed fact, checked against ISO's name of the code (in the comment) and the provider's
 * region name. Add a name here only after checking that ISO's code names that place now.
 */
export const PROVIDER_NAME_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'AT-2': ['Carinthia'], // ISO: Kärnten
  'AT-3': ['Lower Austria'], // ISO: Niederösterreich
  'AT-4': ['Upper Austria'], // ISO: Oberösterreich
  'AT-6': ['Styria'], // ISO: Steiermark
  'AT-9': ['Vienna'], // ISO: Wien
  'CH-GR': ['Grisons'], // French exonym of Graubünden
  'CN-NM': ['Inner Mongolia'], // ISO: Nei Mongol Zizhiqu
  'CN-XZ': ['Tibet'], // ISO: Xizang Zizhiqu
  'CY-02': ['Limassol'], // ISO: Lemesos
  'CY-04': ['Famagusta'], // ISO: Ammochostos
  'CY-05': ['Paphos'], // ISO: Pafos
  'CZ-10': ['Prague'], // ISO: Praha, Hlavní město
  'CZ-20': ['Central Bohemian Region'], // ISO names are adjectives: Středočeský kraj
  'CZ-31': ['South Bohemian Region'], // Jihočeský kraj
  'CZ-41': ['Karlovy Vary Region'], // Karlovarský kraj
  'CZ-42': ['Usti nad Labem Region'], // Ústecký kraj
  'CZ-52': ['Hradec Kralove Region'], // Královéhradecký kraj
  'CZ-53': ['Pardubice Region'], // Pardubický kraj
  'CZ-64': ['South Moravian Region'], // Jihomoravský kraj
  'CZ-80': ['Moravian-Silesian Region'], // Moravskoslezský kraj
  'DE-BY': ['Bavaria'], // ISO: Bayern
  'DE-NI': ['Lower Saxony'], // ISO: Niedersachsen
  'DE-NW': ['North Rhine-Westphalia'], // ISO: Nordrhein-Westfalen
  'DE-RP': ['Rhineland-Palatinate'], // ISO: Rheinland-Pfalz
  'DE-SN': ['Saxony'], // ISO: Sachsen
  'DE-ST': ['Saxony-Anhalt'], // ISO: Sachsen-Anhalt
  'DK-81': ['North Denmark Region'], // ISO: Region Nordjylland
  'DK-82': ['Central Denmark Region'], // ISO: Region Midjylland
  'DK-83': ['Region of Southern Denmark'], // ISO: Region Syddanmark
  'DK-84': ['Capital Region of Denmark'], // ISO: Region Hovedstaden
  'DK-85': ['Region Zealand'], // ISO: Region Sjælland
  'EG-C': ['Cairo'], // ISO: Al Qāhirah
  'EG-BA': ['Red Sea'], // ISO: Al Baḩr al Aḩmar
  'EG-BH': ['Beheira'], // ISO: Al Buḩayrah
  'EG-DK': ['Dakahlia'], // ISO: Ad Daqahlīyah
  'EG-DT': ['Damietta'], // ISO: Dumyāţ
  'EG-GZ': ['Giza'], // ISO: Al Jīzah
  'EG-LX': ['Luxor'], // ISO: Al Uqşur
  'EG-ALX': ['Alexandria'], // ISO: Al Iskandarīyah
  'EG-AST': ['Assiut'], // CLDR: Asyut
  'EG-BNS': ['Beni Suef'], // ISO: Banī Suwayf
  'EG-MNF': ['Menofia'], // ISO: Al Minūfīyah
  'EG-PTS': ['Port Said'], // ISO: Būr Sa‘īd
  'EG-SHG': ['Sohag'], // ISO: Sūhāj
  'EG-SUZ': ['Suez'], // ISO: As Suways
  'EG-WAD': ['New Valley'], // ISO: Al Wādī al Jadīd
  'ES-CN': ['Canary Islands'], // ISO: Canarias
  'ES-IB': ['Balearic Islands'], // ISO: Illes Balears
  'ES-PV': ['Basque Country'], // ISO: País Vasco
  'FR-20R': ['Corsica'], // ISO and CLDR: Corse
  'FR-BRE': ['Brittany'], // ISO: Bretagne
  'HR-03': ['Sisak-Moslavina'], // ISO: Sisačko-moslavačka županija
  'HR-08': ['Primorje-Gorski Kotar'], // ISO: Primorsko-goranska županija
  'HR-09': ['Lika-Senj'], // ISO: Ličko-senjska županija
  'HR-17': ['Split-Dalmatia'], // ISO: Splitsko-dalmatinska županija
  'HR-18': ['Istria'], // ISO: Istarska županija
  'HR-20': ['Medjimurje'], // ISO: Međimurska županija
  'IL-D': ['Southern District'], // ISO: HaDarom
  'IL-M': ['Central District'], // ISO: HaMerkaz
  'IL-Z': ['Northern District'], // ISO: HaTsafon
  'IL-HA': ['Haifa District'], // ISO: H̱efa
  'IL-JM': ['Jerusalem District'], // ISO: Yerushalayim
  'JP-12': ['Chiba'], // ISO: Tiba
  'JP-23': ['Aichi'], // ISO: Aiti
  'JP-39': ['Kochi'], // ISO: Kôti
  'KM-G': ['Ngazidja'], // ISO: Grande Comore; ISO lists Ngazidja as its Shikomor name
  'KR-45': ['Jeonbuk State'], // renamed from Jeollabuk-do in 2024
  'MX-CMX': ['Mexico City'], // ISO and CLDR: Ciudad de México
  'MY-04': ['Malacca'], // ISO: Melaka
  'NL-FR': ['Friesland'], // ISO: Fryslân
  'PH-00': ['Metro Manila'], // ISO: National Capital Region
  'PH-12': ['Region XII'], // Soccsksargen
  'PK-KP': ['Khyber Pakhtunkhwa'], // ISO: Khaībar Pakhtūnkhwā
  'PL-02': ['Lower Silesian'], // ISO: Dolnośląskie
  'PL-04': ['Kuyavian-Pomeranian'], // ISO: Kujawsko-Pomorskie
  'PL-06': ['Lublin'], // ISO: Lubelskie
  'PL-12': ['Lesser Poland'], // ISO: Małopolskie
  'PL-14': ['Masovian'], // ISO: Mazowieckie
  'PL-16': ['Opole'], // ISO: Opolskie
  'PL-22': ['Pomeranian'], // ISO: Pomorskie
  'PL-24': ['Silesian'], // ISO: Śląskie
  'PL-28': ['Warmian-Masurian'], // ISO: Warmińsko-Mazurskie
  'PL-30': ['Greater Poland'], // ISO: Wielkopolskie
  'PL-32': ['West Pomeranian'], // ISO: Zachodniopomorskie
  'RO-B': ['Bucharest'], // ISO: București
  'RU-CE': ['Chechnya'], // CLDR: Chechen
  'RU-ALT': ['Altai Krai'], // ISO: Altayskiy kray
  'RU-KLU': ['Kaluga Oblast'], // ISO: Kaluzhskaya oblast'
  'RU-MOS': ['Moscow Oblast'], // ISO: Moskovskaya oblast'
  'RU-MOW': ['Moscow'], // ISO: Moskva
  'RU-NIZ': ['Nizhny Novgorod Oblast'], // ISO: Nizhegorodskaya oblast'
  'RU-ORL': ['Oryol Oblast'], // ISO: Orlovskaya oblast'
  'RU-PNZ': ['Penza Oblast'], // ISO: Penzenskaya oblast'
  'RU-TUL': ['Tula Oblast'], // ISO: Tul'skaya oblast'
  'RU-VLG': ['Vologda Oblast'], // ISO: Vologodskaya oblast'
  'RU-YEV': ['Jewish Autonomous Oblast'], // ISO: Yevreyskaya avtonomnaya oblast'
  'SA-04': ['Eastern Province'], // ISO: Ash Sharqīyah
  'SA-08': ['Northern Borders Province'], // ISO: Al Ḩudūd ash Shamālīyah
  'SA-14': ['Aseer'], // ISO: 'Asīr
  'TH-10': ['Bangkok'], // ISO: Krung Thep Maha Nakhon
  'UA-30': ['Kyiv city'], // the city, not Kyiv Oblast (UA-32)
  'UA-59': ['Sumy Oblast'], // ISO: Sumska oblast
};
