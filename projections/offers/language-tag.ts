/**
 * A BCP 47 language tag in its conventional casing (RFC 5646 §2.1.1): language lowercase, script
 * titlecase, region uppercase, the rest lowercase; from a singleton on (an extension or `x-`
 * private use), everything lowercase. Tags match case-insensitively, so this changes no meaning:
 * a partner's `EN` or `pt-br` is shown as `en` and `pt-BR`. Pure.
 */
export function conventionalLanguageTag(tag: string): string {
  const subtags = tag.split('-');
  let afterSingleton = false;
  return subtags
    .map((subtag, index) => {
      const lower = subtag.toLowerCase();
      if (index === 0 || afterSingleton) {
        if (index === 0 && subtag.length === 1) afterSingleton = true;
        return lower;
      }
      if (subtag.length === 1) {
        afterSingleton = true;
        return lower;
      }
      if (subtag.length === 4 && /^[a-z]+$/i.test(subtag)) return lower[0]!.toUpperCase() + lower.slice(1);
      if ((subtag.length === 2 && /^[a-z]+$/i.test(subtag)) || /^\d{3}$/.test(subtag)) return subtag.toUpperCase();
      return lower;
    })
    .join('-');
}

/**
 * BCP 47's special language subtags that name no one language (RFC 5646 §4.1, ISO 639-2): `und`
 * "undetermined" (a partner may send it for content whose language it does not know), `zxx` "no
 * linguistic content", `mul` "multiple languages", `mis` "uncoded language".
 */
const NOT_A_KNOWN_LANGUAGE = new Set(['und', 'zxx', 'mul', 'mis']);

/**
 * Whether a tag names a known language. `content_language` reports only the selected content's
 * known language (reference: Offer object; offer info rule 5), so content tagged with one of the
 * special subtags has none, as an untagged snapshot has none. Pure.
 */
export function isKnownLanguage(tag: string): boolean {
  return !NOT_A_KNOWN_LANGUAGE.has(tag.split('-')[0]!.toLowerCase());
}
