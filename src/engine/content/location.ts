/**
 * Autopilot's location check: does the requested target location differ from the client's saved service area?
 * Names are compared after normalising (case, accents, punctuation, common country/state suffixes); one name
 * containing the other's leading place (e.g. "Austin" and "Austin, TX") is the same place. When both sides have
 * coordinates, places within 50 km are the same place whatever their names.
 */
export const SAME_PLACE_KM = 50;

export interface Place {
  name: string | null;
  lat: number | null;
  lng: number | null;
}

const STATES: Record<string, string> = {
  alabama: 'al',
  alaska: 'ak',
  arizona: 'az',
  arkansas: 'ar',
  california: 'ca',
  colorado: 'co',
  connecticut: 'ct',
  delaware: 'de',
  florida: 'fl',
  georgia: 'ga',
  hawaii: 'hi',
  idaho: 'id',
  illinois: 'il',
  indiana: 'in',
  iowa: 'ia',
  kansas: 'ks',
  kentucky: 'ky',
  louisiana: 'la',
  maine: 'me',
  maryland: 'md',
  massachusetts: 'ma',
  michigan: 'mi',
  minnesota: 'mn',
  mississippi: 'ms',
  missouri: 'mo',
  montana: 'mt',
  nebraska: 'ne',
  nevada: 'nv',
  'new hampshire': 'nh',
  'new jersey': 'nj',
  'new mexico': 'nm',
  'new york': 'ny',
  'north carolina': 'nc',
  'north dakota': 'nd',
  ohio: 'oh',
  oklahoma: 'ok',
  oregon: 'or',
  pennsylvania: 'pa',
  'rhode island': 'ri',
  'south carolina': 'sc',
  'south dakota': 'sd',
  tennessee: 'tn',
  texas: 'tx',
  utah: 'ut',
  vermont: 'vt',
  virginia: 'va',
  washington: 'wa',
  'west virginia': 'wv',
  wisconsin: 'wi',
  wyoming: 'wy',
  'district of columbia': 'dc',
};

const SUFFIXES = new Set(['usa', 'us', 'united states', 'united states of america', 'uk', 'united kingdom', 'gb']);

/** Lower-case, accent-free, punctuation-free parts of a place name, without trailing country names. */
export function placeParts(name: string): string[] {
  const parts = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(',')
    .map((p) =>
      p
        .replace(/[^\p{L}\p{N}\s]/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean);
  while (parts.length > 1 && SUFFIXES.has(parts[parts.length - 1]!)) parts.pop();
  return parts.map((p, i) => (i > 0 ? (STATES[p] ?? p) : p));
}

/** Great-circle distance in kilometres. */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** True when the requested place and the saved service area are different markets. */
export function locationsConflict(requested: Place, saved: Place): boolean {
  if (requested.lat !== null && requested.lng !== null && saved.lat !== null && saved.lng !== null) {
    return distanceKm({ lat: requested.lat, lng: requested.lng }, { lat: saved.lat, lng: saved.lng }) > SAME_PLACE_KM;
  }
  if (!requested.name || !saved.name) return false;
  const a = placeParts(requested.name);
  const b = placeParts(saved.name);
  if (a.length === 0 || b.length === 0) return false;
  if (a.join(',') === b.join(',')) return false;
  // The leading part is the place itself; the next part, when both give one, qualifies it (state, region).
  if (a[0] !== b[0]) return true;
  return a.length > 1 && b.length > 1 && a[1] !== b[1];
}
