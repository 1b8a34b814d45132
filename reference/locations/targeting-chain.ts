/**
 * The chain a location is matched against by offer targeting, self to root: its FULL chain, then
 * whatever the LEGACY registry's chain adds. They differ only where the FULL chain stops at a
 * parent missing from the release (`UNRESOLVED_SOURCE_PARENT`, e.g. Kabul): the registry still
 * places such a city under its region or country, as the country header of the caller says it
 * is, so a rule on the country includes or excludes it like any other city there.
 */
export function targetingChain(fullChain: readonly string[], registryChain: readonly string[]): string[] {
  const chain = [...fullChain];
  for (const id of registryChain) if (!chain.includes(id)) chain.push(id);
  return chain;
}
