/** Who is making a data request, as far as rules are concerned. */

/** The admin key (rules skipped), an anonymous pk_ client, or a signed-in end user. */
export type Caller =
  | { readonly kind: 'admin' }
  /** `keyId`: the record id of the pk_ key presented (data rate limits per caller), never the key. */
  | { readonly kind: 'public'; readonly keyId?: string }
  | { readonly kind: 'user'; readonly user: Readonly<Record<string, unknown>>; readonly sessionId: string };

/** True when rules do not apply to the caller. */
export function isAdmin(caller: Caller): boolean {
  return caller.kind === 'admin';
}
