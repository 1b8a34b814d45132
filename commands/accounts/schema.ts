import { Type } from '@sinclair/typebox';
import { canonicalUuid, displayText } from '../input.js';

/** Input pieces shared by the accounts commands. */
export const id = canonicalUuid;
export const name = displayText;
/** Shown to operators in the audit trail as written: visible text, as names are. */
export const reason = Type.Optional(displayText('why, for the audit trail (internal)', 500));

/**
 * A closed set of words. A pattern on a string rather than a union of literals, so the CLI takes
 * it as a plain flag value and the error names the allowed values.
 */
const oneOf = (values: readonly string[]) =>
  Type.String({ pattern: `^(${values.join('|')})$`, description: values.join(', ') });

export const developerStatus = oneOf(['active', 'suspended']);
export const applicationStatus = oneOf(['live', 'live_limited', 'paused', 'suspended']);
export const placementStatus = oneOf(['active', 'inactive']);
export const keyKind = oneOf(['live', 'test']);

/** The read model lags the log by a moment: say so when a just-created record is not found. */
export const notYetHint = '(a record created moments ago may not be projected yet: retry shortly)';
