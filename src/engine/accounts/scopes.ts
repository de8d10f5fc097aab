/** Every scope a key can carry, and which scopes each one grants (docs/api.md §2). */
export const SCOPES = [
  'copywriter:run',
  'copywriter:read',
  'optimize:run',
  'optimize:read',
  'reporter:run',
  'reporter:write',
  'reporter:read',
  'prospector:write',
  'prospector:read',
  'clients:write',
] as const;

export type Scope = (typeof SCOPES)[number];

const GRANTS: Record<Scope, readonly Scope[]> = {
  'copywriter:run': ['copywriter:read'],
  'copywriter:read': [],
  'optimize:run': ['optimize:read'],
  'optimize:read': [],
  'reporter:run': ['reporter:read'],
  // Managing tracker projects (configuration) is not running scans (metered work): neither grants the other.
  'reporter:write': ['reporter:read'],
  'reporter:read': [],
  'prospector:write': ['prospector:read'],
  'prospector:read': [],
  // Reading clients (list_clients) needs any valid key, so there is nothing to grant.
  'clients:write': [],
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes a key effectively holds: its own plus what they grant. */
export function expandScopes(scopes: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of scopes) {
    if (!isScope(s)) continue;
    out.add(s);
    for (const g of GRANTS[s]) out.add(g);
  }
  return out;
}

/** The scope that reads what `scope` runs (a run scope grants its read scope; a read scope is its own). */
export function readScopeOf(scope: Scope): Scope {
  return GRANTS[scope][0] ?? scope;
}
