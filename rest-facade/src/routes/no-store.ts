/** Headers of answers that carry a secret or a session: no cache may keep them (RFC 6749 §5.1 for the token endpoint). */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ 'cache-control': 'no-store', pragma: 'no-cache' });
