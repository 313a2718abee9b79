/** Escaping for text and attribute values in generated XML. */

// Characters XML 1.0 forbids anywhere, even escaped: C0 controls other than tab, LF and CR, lone
// surrogates (with the u flag a surrogate range matches only unpaired ones), U+FFFE and U+FFFF.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu;

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escape text for use in XML element content or a quoted attribute; forbidden characters are dropped. */
export function escapeXml(text: string): string {
  return text.replace(FORBIDDEN, '').replace(/[&<>"']/gu, (char) => ENTITIES[char] ?? char);
}
