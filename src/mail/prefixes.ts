/** URL prefixes of the transactional email surface, shared by every route group mounted under it. */

/** The three prefixes real clients use; only the first two appear in the OpenAPI document. */
export const EMAIL_PREFIXES = ['/v1/email', '/v1/:api_username', '/v1'] as const;
