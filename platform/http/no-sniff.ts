/**
 * On every answer: some quote what was sent (an unknown path, a field), so no browser may read
 * them as anything but their type (README, "Every answer carries X-Content-Type-Options").
 */
export const NO_SNIFF = { 'x-content-type-options': 'nosniff' } as const;
