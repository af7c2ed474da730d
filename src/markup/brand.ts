/** The shape of an account's brand as pages and emails show it (built by `accounts/brand.service.ts`). */

/** An account's brand, with its fall-backs applied; colours are checked `#rrggbb`. */
export interface Brand {
  /** The display name (the account's username when none was set). */
  name: string;
  /** The brand colour. */
  colour: string;
  /** Text on `colour`, at least 4.5:1. */
  onColour: string;
  /** `colour` dark enough for text on white. */
  textColour: string;
  /** The logo's public URL and size, or null. */
  logo: { url: string; width: number; height: number } | null;
  postalAddress: string | null;
}
